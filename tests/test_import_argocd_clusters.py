"""``fleetgen import`` of Argo CD clusters the repository does not register: destinations found
as Argo CD finds them, the cluster Argo CD runs on as its cluster generator adds it, clusters
another tool registers standing in for the selectors nothing here matches, and the message when
nothing is importable. Each repository is written for the test; the imported fleet.py is loaded
with fleetgen's own loader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import fleetgen
from fleetgen.errors import UsageError
from fleetgen.importer import ImportRequest, import_repo
from fleetgen.manifests.yamlio import dump
from fleetgen.model import ClusterVar, Fleet, Selector
from tests.helpers import run_fleetgen

ARGO = "argoproj.io/v1alpha1"
IN_CLUSTER = "https://kubernetes.default.svc"
# This repository's folder apps/web, what the Applications below deploy unless one says.
WEB = {"repoURL": "https://github.com/acme/fleet.git", "targetRevision": "main", "path": "apps/web"}


def _repo(root: Path, files: dict[str, Any]) -> Path:
    """A repository of ``files`` (objects, written as YAML) and the kustomize folder
    ``apps/web``."""
    web = root / "apps" / "web"
    web.mkdir(parents=True)
    (web / "kustomization.yaml").write_text("resources: [config.yaml]\n")
    (web / "config.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n")
    for name, obj in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(dump(obj))
    return root


def _secret(name: str, server: str, **labels: str) -> dict[str, Any]:
    """An Argo CD cluster Secret."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": name,
            "namespace": "argocd",
            "labels": {"argocd.argoproj.io/secret-type": "cluster", **labels},
        },
        "stringData": {"name": name, "server": server},
    }


def _spec(name: str, destination: dict[str, str], source: dict[str, str]) -> dict[str, Any]:
    return {
        "project": "default",
        "source": source,
        "destination": {**destination, "namespace": name},
    }


def _application(name: str, /, **destination: str) -> dict[str, Any]:
    """An Application of apps/web."""
    return {
        "apiVersion": ARGO,
        "kind": "Application",
        "metadata": {"name": name, "namespace": "argocd"},
        "spec": _spec(name, destination, WEB),
    }


def _set(
    name: str, /, *generators: dict[str, Any], source: dict[str, str] = WEB, **destination: str
) -> dict[str, Any]:
    """An ApplicationSet whose Applications deploy ``source`` (apps/web) to the server of each
    parameter set (or ``destination``)."""
    return {
        "apiVersion": ARGO,
        "kind": "ApplicationSet",
        "metadata": {"name": name, "namespace": "argocd"},
        "spec": {
            "goTemplate": True,
            "generators": list(generators),
            "template": {
                "metadata": {"name": f"{name}-{{{{.name}}}}"},
                "spec": _spec(name, destination or {"server": "{{.server}}"}, source),
            },
        },
    }


def _clusters(*expressions: tuple[str, str, list[str]], **labels: str) -> dict[str, Any]:
    """A cluster generator selecting by ``labels`` and (key, operator, values) expressions."""
    selector: dict[str, Any] = {"matchLabels": labels} if labels else {}
    if expressions:
        selector["matchExpressions"] = [
            {"key": key, "operator": operator, **({"values": values} if values else {})}
            for key, operator, values in expressions
        ]
    return {"clusters": {"selector": selector} if selector else {}}


def _imported(root: Path) -> tuple[Fleet, list[str]]:
    """The fleet import writes for ``root`` (loaded as build loads it) and its findings."""
    done = import_repo(ImportRequest(root))
    return fleetgen.load(done.spec).fleet, [finding.render() for finding in done.findings]


def _placed(fleet: Fleet) -> dict[str, Selector]:
    """Each app's targets."""
    return {app.name: app.targets for app in fleet.apps}


def test_a_destination_name_resolves_as_argo_cd_resolves_it(tmp_path: Path) -> None:
    """argo-cd util/argo ``GetDestinationServer``: a name is the Secret of that name; ``in-cluster``
    without such a Secret is https://kubernetes.default.svc (util/db ``GetClusterServersByName``),
    here registered by the Secret ``hub``; a server is compared without its trailing slash."""
    root = _repo(
        tmp_path,
        {
            "clusters/hub.yaml": _secret("hub", IN_CLUSTER, env="mgmt"),
            "apps/by-name.yaml": _application("by-name", name="hub"),
            "apps/in-cluster.yaml": _application("in-cluster-web", name="in-cluster"),
            "apps/by-server.yaml": _application("by-server", server=f"{IN_CLUSTER}/"),
        },
    )
    fleet, _ = _imported(root)
    assert [(c.name, c.server) for c in fleet.clusters] == [
        ("hub", "https://kubernetes.default.svc")
    ]
    assert sorted(app.name for app in fleet.apps) == ["by-name", "by-server", "in-cluster-web"]


def test_a_cluster_generator_without_selector_adds_the_in_cluster_cluster(
    tmp_path: Path,
) -> None:
    """applicationset generators/cluster.go ``GenerateParams``: without a selector the cluster
    Argo CD runs on is added as ``in-cluster`` unless a Secret registers its server; a selector,
    even one its labels would satisfy, leaves it out."""
    root = _repo(
        tmp_path,
        {
            "clusters/prod.yaml": _secret("prod", "https://prod.example.com", env="prod"),
            "sets/every.yaml": _set("every", _clusters()),
            "sets/no-tier.yaml": _set("no-tier", _clusters(("tier", "DoesNotExist", []))),
        },
    )
    fleet, _ = _imported(root)
    assert sorted(c.name for c in fleet.clusters) == ["in-cluster", "prod"]
    targets = _placed(fleet)
    assert targets["every"].model_dump() == Selector().model_dump()  # every cluster
    assert targets["no-tier"].envs == ["prod"]


def test_an_in_cluster_secret_replaces_the_generators_in_cluster(tmp_path: Path) -> None:
    root = _repo(
        tmp_path,
        {
            "clusters/local.yaml": _secret("local", IN_CLUSTER),
            "sets/every.yaml": _set("every", _clusters()),
        },
    )
    fleet, _ = _imported(root)
    assert [c.name for c in fleet.clusters] == ["local"]


def test_selectors_that_match_no_secret_select_clusters_another_tool_registers(
    tmp_path: Path,
) -> None:
    """No selector names an environment: one environment ``external`` and the cluster standing
    for its clusters; the generator without a selector stays on the repository's clusters,
    with a finding that it also selects the others."""
    root = _repo(
        tmp_path,
        {
            "clusters/hub.yaml": _secret("hub", IN_CLUSTER, role="hub"),
            "sets/edge.yaml": _set("edge", _clusters(("zone", "NotIn", ["lab"]), tier="edge")),
            "sets/every.yaml": _set("every", _clusters()),
        },
    )
    fleet, findings = _imported(root)
    external = {c.name: c for c in fleet.clusters if c.registration == "external"}
    assert list(external) == ["external"]
    assert (external["external"].env, external["external"].labels) == (
        "external",
        {"tier": "edge", "zone": "external"},
    )
    edge = _placed(fleet)["edge"]
    assert (edge.runtime, edge.match_labels, edge.exclude) == (True, {"tier": "edge"}, [])
    assert [(e.key, e.operator, e.values) for e in edge.match_expressions] == [
        ("zone", "NotIn", ["lab"])
    ]
    every = _placed(fleet)["every"].model_dump()
    assert every == Selector(envs=["hub"]).model_dump()  # the hub's own environment
    assert (
        "sets/every.yaml:9: ApplicationSet 'every': a cluster generator selects clusters "
        "registered here ('hub') and would also select those another tool registers "
        "('external'): imported on the first only — add an app for the others with "
        "Selector(runtime=True)"
    ) in findings


def test_selectors_that_exclude_each_other_get_clusters_of_their_own(tmp_path: Path) -> None:
    """One add-on for AWS clusters (``aws Exists``), its twin for the others (``aws
    DoesNotExist``): two stand-ins, each app on its own. A merge's later generator only
    overrides the first's parameter sets: it makes no stand-in, and what it overrides on
    clusters no stand-in is is a finding."""
    enabled = ("enable_x", "In", ["true"])
    tag = _clusters(kubernetes_version="1.28")
    tag["clusters"]["values"] = {"tag": "v1.28.0"}
    root = _repo(
        tmp_path,
        {
            "sets/aws.yaml": _set("aws", _clusters(enabled, ("aws", "Exists", []))),
            "sets/oss.yaml": _set("oss", _clusters(enabled, ("aws", "DoesNotExist", []))),
            "sets/versions.yaml": _set(
                "versions",
                {
                    "merge": {
                        "mergeKeys": ["server"],
                        "generators": [_clusters(enable_x="true"), tag],
                    }
                },
            ),
        },
    )
    fleet, findings = _imported(root)
    assert {c.name: c.labels for c in fleet.clusters} == {
        "external": {"aws": "true", "enable_x": "true"},
        "external-2": {"enable_x": "true"},
    }
    placed = _placed(fleet)
    assert (placed["aws"].exclude, placed["oss"].exclude) == ([], [])
    assert placed["versions"].match_labels == {"enable_x": "true"}
    assert (
        "sets/versions.yaml:9: ApplicationSet 'versions': its cluster generators for "
        "kubernetes_version=1.28 select clusters no Secret here registers and no cluster of the "
        "import stands for: what they generate or override is not imported — add it by hand "
        "where it matters (per_env for an environment's clusters)"
    ) in findings


def test_a_runtime_selector_leaves_out_the_clusters_argo_cd_would_not_select(
    tmp_path: Path,
) -> None:
    """A selector only of NotIn terms matches a destination cluster no Secret registers (no
    labels), which the cluster generator never lists: excluded by name."""
    root = _repo(
        tmp_path,
        {
            "apps/local.yaml": _application("local", server=IN_CLUSTER),
            "sets/spokes.yaml": _set("spokes", _clusters(("role", "NotIn", ["hub"]))),
        },
    )
    fleet, _ = _imported(root)
    spokes = _placed(fleet)["spokes"]
    assert (spokes.runtime, spokes.exclude) == (True, ["in-cluster"])


def test_another_sources_folder_per_cluster_is_a_cluster_var(tmp_path: Path) -> None:
    """A whole annotation read as another repository's path is a ``ClusterVar``; the cluster's
    name within a path is a located finding and no app."""
    sites = {"repoURL": "https://github.com/acme/sites.git", "targetRevision": "v2.0.0"}
    edge, name = _clusters(tier="edge"), "{{.name}}"
    root = _repo(
        tmp_path,
        {
            "sets/sites.yaml": _set(
                "sites", edge, source={**sites, "path": "{{.metadata.annotations.site}}"}, name=name
            ),
            "sets/named.yaml": _set(
                "named", edge, source={**sites, "path": "sites/{{.name}}"}, name=name
            ),
        },
    )
    fleet, findings = _imported(root)
    (app,) = fleet.apps
    assert (app.name, app.path, app.targets.runtime) == ("sites", ClusterVar("site"), True)
    assert [c.vars for c in fleet.clusters] == [{"site": "<its annotation 'site'>"}]
    assert (
        "sets/named.yaml:21: named: its folder 'sites/external' is the cluster's, for clusters "
        "selected at run time: not mapped — add an app per folder by hand (per_env for what "
        "differs by environment)"
    ) in findings


def test_nothing_importable_says_what_it_found_and_why_each_is_not_mapped(
    tmp_path: Path,
) -> None:
    root = _repo(
        tmp_path,
        {
            "sets/previews.yaml": _set(
                "previews", {"pullRequest": {"github": {"owner": "acme", "repo": "web"}}}
            ),
            "sets/none-yet.yaml": _set("none-yet", {"list": {"elements": []}}),
            "sets/at-once.yaml": _set("at-once", {"clusters": {"flatList": True}}),
            "sets/tenants.yaml": _set(
                "tenants", {"git": {"repoURL": WEB["repoURL"], "files": [{"path": "t/*.json"}]}}
            ),
            "t/a.json": "a tenant",  # a string: no parameters
        },
    )
    with pytest.raises(UsageError) as raised:
        import_repo(ImportRequest(root))
    assert str(raised.value).splitlines() == [
        f"nothing importable in {root}: it holds 4 ApplicationSets of Argo CD, and import "
        "could map none of them:",
        "  sets/at-once.yaml:1: ApplicationSet 'at-once': a clusters generator's flatList (every "
        "cluster in one set) is not mapped — add its apps by hand",
        "  sets/none-yet.yaml:9: ApplicationSet 'none-yet': its generators make no Application "
        "from what the repository holds — add its apps by hand if it deploys any",
        "  sets/previews.yaml:1: ApplicationSet 'previews': its 'pullRequest' generator is not "
        "mapped — add its apps by hand",
        "  sets/tenants.yaml:9: ApplicationSet 'tenants': its git files generator reads "
        "t/a.json:1, which Argo CD cannot read as parameters (neither an object nor a list of "
        "objects): it makes none of the set's Applications — fix the file and rerun import, or "
        "add its apps by hand",
    ]
    ran = run_fleetgen(root, "import")
    assert (ran.returncode, ran.stderr.splitlines()[-1]) == (2, "nothing was written")
    assert not (root / "fleet.py").exists()
