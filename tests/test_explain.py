"""``explain``: which layer set each effective value; a cluster's apps and waves; the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fleetgen import explain
from tests.helpers import Ran, run_fleetgen

ROOT = Path(__file__).resolve().parent.parent
LAYERING = ROOT / "tests" / "cases" / "layering"

DEFAULT_SYNC = {
    "sync/prune": ("default", False),
    "sync/allow_empty": ("default", False),
    "sync/sync_options": ("default", []),
    "sync/retry": ("default", None),
    "sync/interval": ("default", None),
    "sync/timeout": ("default", None),
    "sync/retry_interval": ("default", None),
    "sync/wait": ("default", True),
}


def layers(name: str) -> dict[str, dict[str, tuple[str, object]]]:
    """cluster -> value key -> (layer, value) for the app ``name`` of the layering case."""
    (app,) = explain.explain(LAYERING / "fleet.py", name).apps
    return {p.cluster: {v.key: (v.layer, v.value) for v in p.values} for p in app.placements}


def test_every_value_is_attributed_to_the_layer_that_set_it() -> None:
    found = layers("web")
    assert found["dev-1"] == {
        "image/envoy/name": ("default", "envoy"),
        "image/envoy/version": ("app", ":v1.30"),
        "image/web/name": ("app", "registry.example.com/web"),
        "image/web/version": ("app", ":1.0.0"),
        "replicas/web": ("app", 2),
        "config/web-config/LEVEL": ("app", "app"),
        "config/web-config/QUIRKS": ("app", "no"),
        "config/web-extra/CREATED": ("app", "by-app"),
        "label/team": ("fleet", "web"),
        "sync/automated": ("env", True),
        "sync/self_heal": ("default", False),
        **DEFAULT_SYNC,
    }
    assert found["prod-b"] == {
        "image/envoy/name": ("default", "envoy"),
        "image/envoy/version": ("app", ":v1.30"),
        "image/web/name": ("per_cluster", "mirror.example.com/web"),
        "image/web/version": ("per_cluster", "@sha256:" + "ab" * 32),
        "replicas/web": ("per_cluster", 1),
        "config/web-config/LEVEL": ("per_cluster", "prod-b"),
        "config/web-config/OCTAL": ("per_cluster", "012"),
        "config/web-config/QUIRKS": ("app", "no"),
        "config/web-config/QUOTED": ("per_env", '"kept"'),
        "config/web-config/TEMPLATE": ("per_env", "{{ .Values.x }} ${HOME}"),
        "config/web-extra/CREATED": ("per_cluster", "by-prod-b"),
        "label/ring": ("per_cluster", "second"),
        "label/team": ("fleet", "web"),
        "annotation/example.com/tier": ("env", "production"),
        "patch/0": ("per_cluster", "Deployment/web (JSON6902)"),
        "sync/automated": ("env", True),
        "sync/self_heal": ("env", True),
        **DEFAULT_SYNC,
    }
    prod_a = found["prod-a"]
    # new_name from the app layer, the tag from per_env: each part names its own layer
    assert prod_a["image/web/name"] == ("app", "registry.example.com/web")
    assert prod_a["image/web/version"] == ("per_env", ":1.0.1")
    assert prod_a["replicas/web"] == ("per_env", 4)
    assert "patch/0" not in prod_a and "label/ring" not in prod_a


def test_cluster_lists_its_apps_and_rollout_wave() -> None:
    (cluster,) = explain.explain(ROOT / "fleet.py", "prod-west").clusters
    assert (cluster.env, cluster.wave, cluster.waves) == ("prod", 2, 3)
    assert [(p.app, p.wave) for p in cluster.apps] == [
        ("api-service", 2),
        ("cert-manager", 2),
        ("cluster-baseline", 2),
        ("order-service", 2),
        ("payment-service", 2),
        ("platform-config", 2),
    ]
    assert "IAM role arn:aws:iam::111122223333:role/argocd-deployer" in cluster.credentials
    assert {p.engine for p in cluster.apps} == {"argocd"}
    text = explain.text(explain.explain(ROOT / "fleet.py", "prod-west"))
    assert "  rollout: wave 2 of 3 in prod\n" in text
    assert "    api-service       argocd wave 2  overlays/api-service/prod\n" in text


def test_app_says_which_engine_runs_it_where() -> None:
    text = explain.text(explain.explain(ROOT / "fleet.py", "api-service"))
    assert (
        "  runs on 5 cluster(s): dev (dev, flux), dr (prod, argocd, wave 3), prod-east "
        "(prod, argocd, wave 1), prod-west (prod, argocd, wave 2), staging (staging, argocd)\n"
        in text
    )


def test_a_chart_app_shows_which_layer_set_each_value_path() -> None:
    (app,) = explain.explain(ROOT / "fleet.py", "cert-manager").apps
    assert app.path == "chart cert-manager from https://charts.jetstack.io"
    by_cluster = {p.cluster: {v.key: (v.layer, v.value) for v in p.values} for p in app.placements}
    dev, prod = by_cluster["dev"], by_cluster["prod-east"]
    assert dev["chart/version"] == ("app", "v1.16.2")
    assert dev["values/crds.enabled"] == ("app", True)
    assert "values/replicaCount" not in dev
    assert prod["values/replicaCount"] == ("per_env", 2)
    assert prod["values/resources.requests.cpu"] == ("per_env", "50m")
    assert prod["values/global.leaderElection.namespace"] == ("app", "cert-manager")
    text = explain.text(explain.explain(ROOT / "fleet.py", "status-page"))
    assert "  dev — chart charts/status-page (status-page 0.1.0)\n" in text
    assert "  staging — chart charts/status-page (status-page 0.1.0)\n" in text
    assert "    values/resources.requests  per_env  null\n" in text  # removed by None in dev


def test_text_groups_clusters_that_share_an_overlay() -> None:
    text = explain.text(explain.explain(ROOT / "fleet.py", "api-service"))
    assert "  prod-east, prod-west — overlays/api-service/prod\n" in text
    dr = text.split("  dr — overlays/api-service/clusters/dr\n")[1].split("\n  prod-east")[0]
    assert "    replicas/api-service         per_label[role=dr]  1\n" in dr  # its label layer


def fleetgen(cwd: Path, *args: str) -> Ran:
    return run_fleetgen(cwd, *args)


def test_cli_whole_fleet_as_json() -> None:
    result = fleetgen(LAYERING, "explain", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [a["name"] for a in data["apps"]] == ["web"]
    assert [c["name"] for c in data["clusters"]] == ["dev-1", "prod-a", "prod-b"]


@pytest.mark.parametrize(
    ("rename", "message"),
    [
        ("", "'web' is both an app and a cluster"),
        ("dev-1", "'wbe' is neither an app nor a cluster of fleet 'layers' (did you mean 'web'?)"),
    ],
)
def test_cli_refuses_an_ambiguous_or_unknown_name(
    tmp_path: Path, rename: str, message: str
) -> None:
    shutil.copytree(LAYERING, tmp_path / "repo", ignore=shutil.ignore_patterns("expected"))
    spec = tmp_path / "repo" / "fleet.py"
    spec.write_text(spec.read_text().replace('name="dev-1"', f'name="{rename or "web"}"'))
    result = fleetgen(spec.parent, "explain", "web" if not rename else "wbe")
    assert (result.returncode, result.stdout) == (2, "")
    assert message in result.stderr


CANARY_ONLY = """
from fleetgen import App, Cluster, Environment, Fleet, Project, Rollout, Step, SyncPolicy
fleet = Fleet(
    name="small", repo="https://git.example.com/small.git", engines=["flux"],
    environments=[Environment(name="prod", sync=SyncPolicy(automated=True), rollout=Rollout(
        steps=[Step(match_labels={"ring": "canary"}), Step()]))],
    clusters=[Cluster(name="prod-a", env="prod", server="https://prod-a.example.com",
                      labels={"ring": "canary"})],
    projects=[Project(name="web", namespaces=["web"])],
    apps=[App(name="web", project="web", namespace="web", path="apps/web/base")],
)
"""


def test_an_empty_catch_all_wave_is_not_counted(tmp_path: Path) -> None:
    """The environment's first cluster is its canary; the catch-all step has no cluster yet."""
    shutil.copytree(LAYERING / "apps", tmp_path / "apps")
    (tmp_path / "fleet.py").write_text(CANARY_ONLY)
    (cluster,) = explain.explain(tmp_path / "fleet.py", "prod-a").clusters
    assert (cluster.wave, cluster.waves) == (1, 1)


def test_per_label_values_are_attributed_to_their_label() -> None:
    """east-2 matches region=east and tier=gpu; its per_cluster layer wins over both."""
    (app,) = explain.explain(ROOT / "tests" / "cases" / "per-label" / "fleet.py", "web").apps
    found = {p.cluster: {v.key: (v.layer, v.value) for v in p.values} for p in app.placements}
    east_2 = found["east-2"]
    assert east_2["image/web/name"] == ("per_label[region=east]", "east.registry.example.com/web")
    assert east_2["replicas/web"] == ("per_label[tier=gpu]", 6)
    assert east_2["config/web-config/REGION"] == ("per_label[region=east]", "east")
    assert east_2["config/web-config/LEVEL"] == ("per_cluster", "east-2")
    assert east_2["sync/prune"] == ("per_label[tier=gpu]", True)  # both set it alike
    assert found["west-1"]["replicas/web"] == ("app", 2)
    shown = explain.text(
        explain.explain(ROOT / "tests" / "cases" / "per-label" / "fleet.py", "web")
    )
    assert "per_label[tier=gpu]" in shown
