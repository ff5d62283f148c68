"""``explain``: which layer set each effective value; a cluster's apps and waves; the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fleetgen.explain import explanation as explain
from fleetgen.manifests.yamlio import load_all
from fleetgen.pipeline import api
from fleetgen.resolver.timing import FLUX_DEFAULT, TIMING_FIELDS
from fleetgen.write.output import APP_LABEL, CLUSTER_LABEL
from tests.helpers import Ran, run_fleetgen

ROOT = Path(__file__).resolve().parent.parent
LAYERING = ROOT / "tests" / "cases" / "layering"

DEFAULT_SYNC = {  # of an Argo CD placement, which has no timing field
    "sync/prune": ("default", False),
    "sync/allow_empty": ("default", False),
    "sync/sync_options": ("default", []),
    "sync/retry": ("default", None),
    "cascade_delete": ("default", False),
}
DEFAULT_FLUX_SYNC = {  # as the Flux Kustomization says, or Flux does where it says nothing
    **DEFAULT_SYNC,
    "sync/interval": ("default", "10m"),
    "sync/timeout": ("default", "10m"),
    "sync/retry_interval": ("Flux default", "10m"),
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
        **DEFAULT_FLUX_SYNC,
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


def test_dependencies_say_how_each_engine_orders_them() -> None:
    """Flux waits for a chart app through its gate (`fleetgen.emit.flux.dependencies`); Argo CD
    has no order between Applications."""
    text = explain.text(explain.explain(ROOT / "fleet.py", "order-service"))
    assert (
        "  depends on: platform-config, cert-manager (Flux: waits for gate cert-manager.ready, "
        "its HelmRelease's health), Argo CD: no order between Applications\n" in text
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
    assert "    values/resources.requests  per_env            null\n" in text  # None in dev
    # A Flux chart app's remediation retries: the sync policy's retry, as HelmChart sets none
    # (`fleetgen.resolver.plan.helm_retries`); its Argo CD placement (staging) has none.
    assert "    chart/install_retries      fleet, from retry  5\n" in text
    assert text.count("chart/upgrade_retries") == 1


def test_a_chart_apps_post_render_and_retries_show_their_layers() -> None:
    """The images and patches that post-render a Flux chart app come from its layers like a
    kustomize app's; its retries from ``HelmChart`` or the sync policy's retry."""
    (app,) = explain.explain(ROOT / "tests/cases/chart-options/fleet.py", "echo").apps
    by_cluster = {p.cluster: {v.key: (v.layer, v.value) for v in p.values} for p in app.placements}
    image = "image/registry.example.com/echo"
    assert by_cluster["dev-1"][f"{image}/name"] == ("app", "mirror.example.com/echo")
    assert f"{image}/version" not in by_cluster["dev-1"]
    assert by_cluster["prod-a"][f"{image}/version"] == ("per_env", ":2.1")
    assert by_cluster["prod-a"]["patch/0"] == ("per_cluster", "Deployment (strategic merge)")
    assert by_cluster["prod-a"]["chart/install_retries"] == ("chart", 3)
    assert by_cluster["prod-a"]["chart/upgrade_retries"] == (FLUX_DEFAULT, 0)


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


def test_an_unknown_name_lists_the_close_names_or_what_there_is(tmp_path: Path) -> None:
    """``explain nosuchapp`` names what the fleet has, a near miss the close names (issue
    #39)."""
    far = fleetgen(LAYERING, "explain", "nosuchapp")
    assert far.returncode == 2
    assert far.stderr == (
        "'nosuchapp' is neither an app nor a cluster of fleet 'layers' (it has dev-1, prod-a, "
        "prod-b, web)\n"
    )
    near = fleetgen(LAYERING, "explain", "prod")
    assert "(did you mean 'prod-b' or 'prod-a'?)" in near.stderr


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


FLEETS = [ROOT / "fleet.py", *sorted((ROOT / "tests" / "cases").glob("*/fleet.py"))]
SPEC_FIELDS = {"interval": "interval", "timeout": "timeout", "retry_interval": "retryInterval"}


@pytest.mark.parametrize("spec", FLEETS, ids=lambda p: p.parent.name)
def test_timing_is_what_the_flux_objects_say(spec: Path) -> None:
    """Each Flux placement's interval, timeout and retry_interval are those of its Kustomization
    (a chart app's: its HelmRelease), with their source; a value Flux chooses itself is one the
    object leaves out, and never null."""
    compiled = api.compile_spec(spec)
    objects = {
        (doc["kind"], labels[APP_LABEL], labels[CLUSTER_LABEL]): doc["spec"]
        for path, data in compiled.rendered.items()
        if path.startswith("flux/")
        for doc in load_all(data)
        if isinstance(doc, dict)
        and APP_LABEL in (labels := (doc.get("metadata") or {}).get("labels") or {})
        and CLUSTER_LABEL in labels
    }
    views = [explain.placement_view(compiled.plan, p) for p in compiled.plan.placements]
    flux = [view for view in views if view.engine == "flux"]
    for view in flux:
        kind = "HelmRelease" if view.overlay.startswith("chart ") else "Kustomization"
        written = objects[kind, view.app, view.cluster]
        shown = {v.key: (v.layer, v.value) for v in view.values}
        for name, field in SPEC_FIELDS.items():
            if field in written:
                assert shown[f"sync/{name}"][1] == written[field], (view, name)
            elif f"sync/{name}" in shown:
                layer, value = shown[f"sync/{name}"]
                assert layer == FLUX_DEFAULT and value is not None, (view, name)
            else:
                assert (kind, name) == ("HelmRelease", "retry_interval"), view
        assert shown["sync/wait"][1] is written.get(
            "wait", not written.get("install", {}).get("disableWait")
        )
    for view in views:
        if view.engine == "argocd":
            assert not {f"sync/{name}" for name in TIMING_FIELDS} & {
                v.key for v in view.values if v.layer == "default"
            }


def test_an_interval_nobody_sets_is_flux_options_default(tmp_path: Path) -> None:
    shutil.copytree(LAYERING / "apps", tmp_path / "apps")
    (tmp_path / "fleet.py").write_text(CANARY_ONLY)
    (app,) = explain.explain(tmp_path / "fleet.py", "web").apps
    values = {v.key: (v.layer, v.value) for v in app.placements[0].values}
    assert values["sync/interval"] == ("default", "10m")
    (tmp_path / "fleet.py").write_text(
        CANARY_ONLY.replace(
            'engines=["flux"],', 'engines=["flux"], flux=FluxOptions(interval="5m"),'
        ).replace("Fleet, Project", "Fleet, FluxOptions, Project")
    )
    text = explain.text(explain.explain(tmp_path / "fleet.py", "web"))
    assert "    sync/interval        FluxOptions   5m\n" in text
    assert "    sync/retry_interval  Flux default  5m\n" in text


@pytest.mark.parametrize("spec", FLEETS, ids=lambda p: p.parent.name)
def test_credentials_tell_the_story_of_the_fleet_map(spec: Path) -> None:
    """A cluster only its own Flux reconciles is "in-cluster (Flux pulls)" in both, whatever
    credentials the spec gives it; one an engine reaches from outside shows its credentials."""
    compiled = api.compile_spec(spec)
    readme = compiled.rendered["README.md"].decode()
    cells = {
        row.split(" | ")[0].removeprefix("| "): row.split(" | ")[3]
        for row in readme.split("## Clusters")[1].split("\n##")[0].splitlines()
        if row.startswith("| ") and not row.startswith(("| cluster ", "| ---"))
    }
    clusters = {c.name: c for c in explain.explain_plan(compiled.plan).clusters}
    assert cells.keys() == clusters.keys()
    for name, cell in cells.items():
        said = clusters[name].credentials
        if cell == "in-cluster (Flux pulls)":
            assert said == cell, name
        elif cell == "—":
            assert said.startswith("—"), name
        elif cell.startswith("external secret"):
            assert said.endswith("(External Secrets)"), name
        elif cell == "AWS IAM role":
            assert said.startswith("AWS IAM role "), name
        elif cell.startswith("exec"):
            assert said.startswith("exec plugin: "), name
        else:
            assert (cell, said.split(" (")[0]) == ("none", "none"), name


def test_a_flux_only_cluster_is_reached_by_its_own_flux() -> None:
    (cluster,) = explain.explain(ROOT / "fleet.py", "dev").clusters  # default_credentials set
    assert cluster.credentials == "in-cluster (Flux pulls)"
    assert "  credentials: in-cluster (Flux pulls)\n" in explain.text(
        explain.explain(ROOT / "fleet.py", "dev")
    )
