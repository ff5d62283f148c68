"""Plain directories as app paths: both engines deploy the same objects from one.

Argo CD reads a directory source with ``directory.recurse`` (argo-cd reposerver/repository
``findManifests`` and ``getPotentiallyValidManifests``: every file matching ``manifestFile``,
.yaml/.yml/.json/.jsonnet, in every folder, but those holding ``+argocd:skip-file-rendering``),
and the controller puts a namespaced object without a namespace in the destination namespace and
drops the namespace of a cluster-scoped one (controller/state.go ``NormalizeTargetObjects``).
kustomize-controller builds a path without kustomization through a generated one (fluxcd/pkg
kustomize ``Generator.GenerateManifest`` and ``scanManifests``: every .yaml/.yml file in every
folder, ``targetNamespace`` as its ``namespace``). These tests render both from what the golden
case emits, with real kustomize, and compare; and show that what fleetgen refuses in a plain
directory would deploy differently on the two.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

import fleetgen
from fleetgen import validate as validation
from fleetgen.errors import SpecError
from fleetgen.explain import explanation as explain
from fleetgen.inputs.load import load
from fleetgen.inputs.reading import filesystem_lister, filesystem_reader
from fleetgen.inputs.workspace import scan
from fleetgen.manifests.k8s import CLUSTER_SCOPED, group_of
from fleetgen.pipeline import api
from fleetgen.pipeline.incremental import inputs
from fleetgen.tools.kustomize import Kustomize, build
from tests.diff.test_diff import commit, git

CASE = Path(__file__).parent / "cases" / "plain-dirs"
ARGO_MANIFEST = re.compile(r"^.*\.(yaml|yml|json|jsonnet)$")  # reposerver ``manifestFile``
FLUX_SUFFIXES = (".yaml", ".yml")  # fluxcd/pkg kustomize ``scanManifests``


def argo_objects(directory: Path, namespace: str | None) -> list[dict[str, Any]]:
    """What an Argo CD Application with this directory source (recurse) and destination
    namespace applies: `findManifests`, each List's items (`GenerateManifests`:
    ``EachListItem``), then `NormalizeTargetObjects`."""
    found = []
    for path in sorted(directory.rglob("*")):
        if path.is_file() and ARGO_MANIFEST.match(path.name):
            for doc in yaml.safe_load_all(path.read_text()):
                found += doc["items"] if isinstance(doc, dict) and "items" in doc else [doc]
    return [_normalized(doc, namespace) for doc in found if doc is not None]


def _normalized(doc: dict[str, Any], namespace: str | None) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    metadata = doc["metadata"]
    if (group_of(doc["apiVersion"]), doc["kind"]) in CLUSTER_SCOPED:
        metadata.pop("namespace", None)
    elif not metadata.get("namespace") and namespace:
        metadata["namespace"] = namespace
    return doc


def flux_objects(
    directory: Path, namespace: str | None, kustomize: Kustomize, work: Path
) -> list[dict[str, Any]]:
    """What a Flux Kustomization of this path and targetNamespace applies: the kustomization
    kustomize-controller generates (`scanManifests`, `GenerateManifest`), built by kustomize."""
    shutil.copytree(directory, work)
    resources = sorted(
        "./" + path.relative_to(work).as_posix()
        for path in work.rglob("*")
        if path.is_file() and path.suffix in FLUX_SUFFIXES
    )
    generated: dict[str, Any] = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": resources,
    }
    if namespace:
        generated["namespace"] = namespace
    (work / "kustomization.yaml").write_text(yaml.safe_dump(generated))
    return [doc for doc in yaml.safe_load_all(build(work, kustomize)) if doc is not None]


def _same(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> bool:
    def canonical(docs: list[dict[str, Any]]) -> list[str]:
        return sorted(json.dumps(doc, sort_keys=True) for doc in docs)

    return canonical(first) == canonical(second)


def _emitted(out: Path) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """app -> its Application template's spec; app -> its Flux Kustomization's spec."""
    argo = {
        path.stem: next(yaml.safe_load_all(path.read_text()))["spec"]["template"]["spec"]
        for path in (out / "argocd" / "applicationsets").glob("*.yaml")
    }
    flux = {
        doc["metadata"]["name"]: doc["spec"]
        for doc in yaml.safe_load_all((out / "flux/clusters/dev-1/kustomizations.yaml").read_text())
    }
    return argo, flux


def test_both_engines_deploy_the_same_objects_from_the_golden_directories(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(CASE, repo, ignore=shutil.ignore_patterns("expected", "expect.yaml"))
    argo, flux = _emitted(api.build(repo / "fleet.py").out_dir)
    assert set(argo) == set(flux) == {"hello", "monitoring"}
    for app in sorted(argo):
        source, destination = argo[app]["source"], argo[app]["destination"]
        assert source["directory"] == {"recurse": True}
        assert flux[app]["path"] == "./" + source["path"]
        assert flux[app].get("targetNamespace") == destination.get("namespace")
        directory = repo / source["path"]
        applied = argo_objects(directory, destination.get("namespace"))
        built = flux_objects(directory, flux[app].get("targetNamespace"), kustomize, tmp_path / app)
        assert len(applied) > 1
        assert _same(applied, built), app


_FLEET = """
from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="plain",
    repo="https://git.example.com/fleet.git",
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example.com")],
    projects=[Project(name="shop", namespaces=["shop", "other"])],
    apps=[App(name="raw", project="shop", namespace="shop", path="apps/raw")],
)
"""

# What Flux's targetNamespace rewrites beyond Argo CD's destination namespace (kustomize
# api/filters/namespace, builtinpluginconsts/namespace.go), each with the words fleetgen's refusal
# says.
REWRITTEN = {
    "an object in another namespace": (
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings, namespace: other}
        """,
        "metadata/namespace says 'other'",
    ),
    "a binding subject named default": (
        """
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRoleBinding
        metadata: {name: readers}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
        subjects: [{kind: ServiceAccount, name: default, namespace: other}]
        """,
        "subjects/0/namespace says 'other'",
    ),
    "a local APIService": (
        """
        apiVersion: apiregistration.k8s.io/v1
        kind: APIService
        metadata: {name: v1.example.com}
        spec: {group: example.com, version: v1, groupPriorityMinimum: 100, versionPriority: 100}
        """,
        "spec/service/namespace is not set",
    ),
    "a Namespace": (
        """
        apiVersion: v1
        kind: Namespace
        metadata: {name: other}
        """,
        "ships Namespace 'other', which Flux's targetNamespace turns into",
    ),
}


@pytest.mark.parametrize("manifest, refusal", REWRITTEN.values(), ids=list(REWRITTEN))
def test_what_the_engines_would_place_apart_is_refused(
    manifest: str, refusal: str, tmp_path: Path, kustomize: Kustomize
) -> None:
    repo = tmp_path / "repo"
    directory = repo / "apps" / "raw"
    directory.mkdir(parents=True)
    (directory / "objects.yaml").write_text(textwrap.dedent(manifest))
    (repo / "fleet.py").write_text(_FLEET)
    applied = argo_objects(directory, "shop")
    assert not _same(applied, flux_objects(directory, "shop", kustomize, tmp_path / "flux"))
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo / "fleet.py")
    assert [refusal in problem.message for problem in raised.value.problems] == [True], [
        p.message for p in raised.value.problems
    ]


def test_every_file_of_a_plain_directory_is_an_input(tmp_path: Path) -> None:
    """A build reads nothing of a plain directory but its inventory: the digest of every file
    under it keys the incremental compile, so any change compiles again."""
    repo = tmp_path / "repo"
    shutil.copytree(CASE, repo, ignore=shutil.ignore_patterns("expected", "expect.yaml"))
    before = inputs(load(repo / "fleet.py"))
    readme = repo / "apps" / "hello" / "README.md"  # read by neither engine
    readme.write_text(readme.read_text() + "\n")
    after = inputs(load(repo / "fleet.py"))
    assert before is not None and after is not None
    changed = {name for name in after.digests if before.digests[name] != after.digests[name]}
    assert changed == {"base:apps/hello"}


def test_explain_says_the_app_reads_a_plain_directory() -> None:
    text = explain.text(explain.explain(CASE / "fleet.py", "hello"))
    assert text.splitlines()[0] == (
        "app hello: project platform, namespace hello, plain directory apps/hello "
        "(no kustomization.yaml: no overlay)"
    )
    assert "  path               app      apps/hello" in text


def test_secret_material_in_a_plain_directory_is_refused_at_its_line(tmp_path: Path) -> None:
    """The secret scan reads a plain directory's files as a base's (`Inventory._add_file`)."""
    repo = tmp_path / "repo"
    directory = repo / "apps" / "raw" / "nested"
    directory.mkdir(parents=True)
    (directory / "secret.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n"
        "  password: correct-horse-battery\n"
    )
    (repo / "fleet.py").write_text(_FLEET)
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo / "fleet.py")
    (problem,) = raised.value.problems
    assert (Path(problem.file).relative_to(repo).as_posix(), problem.line) == (
        "apps/raw/nested/secret.yaml",
        6,
    )
    assert "Secret db: stringData/password" in problem.message


def test_a_plain_directory_is_inventoried_as_a_base_is() -> None:
    """Namespaces used, the Namespaces and cluster-scoped kinds shipped, images and ConfigMaps
    of every manifest file in every folder (the golden case's directories)."""
    workspace = scan(
        filesystem_reader(CASE), ["apps/hello", "apps/monitoring"], files=filesystem_lister(CASE)
    )
    hello, monitoring = workspace.bases["apps/hello"], workspace.bases["apps/monitoring"]
    assert (hello.plain, hello.kustomization, hello.problems) == (True, None, ())
    assert hello.namespaces == {"hello"}  # config.yml's ConfigMap; the others state none
    assert hello.images == {"ghcr.io/example/hello:1.0.0"}
    assert hello.configmaps == {"hello"}
    assert ("ServiceAccount", "hello") in hello.resources  # in rbac/, a folder below
    assert monitoring.namespace_objects == {"monitoring"}
    assert ("ConfigMap", "dashboards") in monitoring.resources  # an item of a List
    assert monitoring.cluster_kinds == {
        ("", "Namespace"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    }


def test_diff_renders_a_changed_plain_directory_as_flux_builds_it(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """Nothing fleetgen writes changes with a plain directory's files: the note says so, and
    ``--render`` builds the directory at both refs as kustomize-controller does
    (`fleetgen.tools.renders.plain_directory`) and compares what it deploys."""
    repo = tmp_path / "repo"
    shutil.copytree(CASE, repo, ignore=shutil.ignore_patterns("expected", "expect.yaml"))
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "fleet")
    deployment = repo / "apps" / "hello" / "deployment.yaml"
    deployment.write_text(deployment.read_text().replace("replicas: 2", "replicas: 3"))
    report = fleetgen.diff(repo / "fleet.py")
    assert not report.changed
    assert list(report.notes) == [
        "the plain directory of hello changed, which generated files do not show: run "
        "`fleetgen diff --render` to see what it deploys"
    ]
    rendered = fleetgen.diff(repo / "fleet.py", render=True, kustomize=kustomize).to_json()
    (change,) = rendered["changes"]
    assert (change["source"], change["kind"], change["namespace"], change["file"]) == (
        "rendered",
        "Deployment",
        "hello",
        "apps/hello",
    )
    assert change["fields"] == [{"path": "spec.replicas", "old": 2, "new": 3}]
    assert sorted(change["clusters"]) == ["dev-1", "prod-1"]


def test_validate_render_builds_a_plain_directory_as_flux_does(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """``validate --render`` checks a plain directory's objects as the kustomization
    kustomize-controller generates builds them (`fleetgen.validate.render`), each finding at the
    file that holds the object, in the app's namespace (no foreign-namespace finding)."""
    repo = tmp_path / "repo"
    shutil.copytree(CASE, repo, ignore=shutil.ignore_patterns("expected", "expect.yaml"))
    report = validation.validate(repo / "fleet.py", render=True)
    assert report.summary.rendered_checked == 12  # hello's 6 objects, monitoring's 6 (a List's)
    assert report.summary.builds is not None and report.summary.builds.overlays == 2
    rules = {
        (f.app, f.rule, f.object, f.location.path if f.location else None) for f in report.findings
    }
    assert (
        "hello",
        "run-as-non-root",
        "Deployment hello/hello",
        "apps/hello/deployment.yaml",
    ) in rules
    assert (
        "monitoring",
        "resource-limits",
        "DaemonSet monitoring/agent",
        "apps/monitoring/agent.yaml",
    ) in rules
    assert not {rule for _, rule, _, _ in rules} & {
        "kustomize-build",
        "foreign-namespace",
        "unplaced-object",
    }


def test_a_plain_directory_holding_the_output_is_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "deploy").mkdir(parents=True)
    (repo / "deploy" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
    )
    fleet = _FLEET.replace('path="apps/raw")', 'path="deploy")').replace(
        'name="plain",', 'name="plain",\n    output_dir="deploy/generated",'
    )
    (repo / "fleet.py").write_text(fleet)
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo / "fleet.py")
    assert [p.message for p in raised.value.problems] == [
        "app 'raw': the plain directory 'deploy' holds fleetgen's output (deploy/generated), "
        "which both engines would then apply as its manifests: give the app a directory of its own"
    ]


def test_what_layers_add_to_overlays_is_refused_on_a_plain_directory(tmp_path: Path) -> None:
    """Overrides(resources=..., components=...) add to an overlay, which a plain directory has
    not (`fleetgen.resolver.inputs.check_layer_inputs`)."""
    repo = tmp_path / "repo"
    for folder in ("apps/raw", "extra"):
        (repo / folder).mkdir(parents=True)
    (repo / "apps/raw/cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
    )
    (repo / "extra/kustomization.yaml").write_text("resources: []\n")
    fleet = _FLEET.replace(
        'path="apps/raw")',
        'path="apps/raw", per_env={"dev": Overrides(resources=["extra"])})',
    ).replace("from fleetgen import App,", "from fleetgen import App, Overrides,")
    (repo / "fleet.py").write_text(fleet)
    with pytest.raises(SpecError) as raised:
        api.compile_spec(repo / "fleet.py")
    assert [p.message for p in raised.value.problems] == [
        "app 'raw': Overrides(resources=...) adds to the kustomize overlays fleetgen writes for "
        "an app with a base (App(path=...)); a plain directory (no kustomization.yaml) has none: "
        "add a kustomization.yaml there to make it a base"
    ]
