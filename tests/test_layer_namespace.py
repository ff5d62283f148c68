"""Overrides(namespace=..., name_prefix=...): a namespace and a kustomize namePrefix per layer
(the golden case ``tests/cases/layer-namespace`` on both engines; ``tests/bad_inputs/name-prefix-*``
and ``layer-namespace-*`` the refused ones).

A layer's namespace is the placements' it reaches (`Placement.namespace`, the deepest layer's):
kustomize's NamespaceTransformer in that layer's overlay (the last one wins: a cluster overlay's
replaces its env overlay's); the Argo CD Application's ``spec.destination.namespace`` (from the
template, or each generator's ``values.namespace``), created by the ``CreateNamespace=true`` sync
option (controller ``syncNamespace``); the Namespace Flux's kustomize-controller applies from
``flux/clusters/<cluster>/namespaces.yaml``; the AppProject's destinations (checked by Argo CD's
``ValidatePermissions``).

kustomize's ``PrefixSuffixTransformer`` (api/filters/prefix) prefixes every object of the
kustomization that sets ``namePrefix``, and its ``nameReference`` rules rename the references to
them it knows (a Deployment's configMapRef); replicas, configMapGenerator merges and patch targets
match an object by the names it had (``resource.Resource`` keeps its original id), so fleetgen's
replicas, config and config-hash patch keep naming the base's objects. It prefixes again at each
kustomization: a cluster overlay's prefix lands in front of its env overlay's, which is why
resolve writes a placement's prefix once (a cluster layer may only repeat its env's).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from fleetgen.diffs.blast import derived_applications
from fleetgen.emit.flux.namespaces import app_namespaces
from fleetgen.explain.explanation import explain_plan
from fleetgen.pipeline import api
from fleetgen.resolver.placements import Placements
from fleetgen.tools.kustomize import Kustomize, build as kustomize_build
from fleetgen.write.output import OutputFile
from tests.diff.test_diff import commit, edit, git
from tests.emit.test_argocd_appsets import applications, assert_generates_the_plan
from tests.helpers import case_copy, run_fleetgen

CASE = Path(__file__).parent / "cases" / "layer-namespace"


def test_explain_names_the_layer_that_set_each_placements_prefix() -> None:
    plan = api.compile_spec(CASE / "fleet.py").plan
    prefixes = {
        placement.cluster: next(
            (value.value, value.layer) for value in placement.values if value.key == "name_prefix"
        )
        for placement in explain_plan(plan, "web").apps[0].placements
    }
    assert prefixes == {
        "staging-1": ("staging-", "per_env"),
        "staging-2": ("staging-", "per_env"),
        "prod-a": ("east-", "per_label[region=east]"),
        "prod-b": ("b-", "per_cluster"),
    }


def test_a_cluster_layer_repeating_its_envs_prefix_is_written_once(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """The env overlay has prefixed every object already: the cluster overlay writes no
    namePrefix, or kustomize would render ``staging-staging-web``."""
    repo = case_copy(
        CASE,
        tmp_path / "repo",
        (
            '"staging-1": Overrides(replicas={"web": 2})',
            '"staging-1": Overrides(replicas={"web": 2}, name_prefix="staging-")',
        ),
    )
    api.build(repo / "fleet.py")
    overlay = repo / "output/overlays/web/clusters/staging-1"
    assert "namePrefix" not in yaml.safe_load((overlay / "kustomization.yaml").read_text())
    rendered = yaml.safe_load_all(kustomize_build(overlay, kustomize))
    assert sorted(doc["metadata"]["name"] for doc in rendered) == [
        "staging-web",
        "staging-web",
        "staging-web-config",
    ]


def test_each_layers_namespace_is_where_each_engine_puts_its_placements() -> None:
    """The ApplicationSets, their Go templates evaluated for each registration, generate each
    Argo CD placement's Application with its namespace (staging's per generator)."""
    result = api.compile_spec(CASE / "fleet.py")
    plan = result.plan
    assert {p.cluster: p.namespace for p in plan.placements if p.app == "web"} == {
        "staging-1": "web",
        "staging-2": "web-canary",
        "prod-a": "web-prod",
        "prod-b": "web-b",
    }
    docs = {
        path: [doc for doc in yaml.safe_load_all(data) if doc]
        for path, data in result.rendered.items()
        if path.startswith("argocd/")
    }
    assert_generates_the_plan(plan, docs)
    for application in (a for apps in applications(docs).values() for a in apps):
        assert "CreateNamespace=true" in application["spec"]["syncPolicy"]["syncOptions"]
    assert app_namespaces(plan.on("flux")) == {"prod-a": {"cache-prod", "web-prod"}}
    project = yaml.safe_load(result.rendered["argocd/projects/web.yaml"])
    assert [(d["name"], d["namespace"]) for d in project["spec"]["destinations"]] == [
        ("prod-b", "cache-prod"),
        ("prod-b", "web-b"),
        ("staging-1", "cache"),
        ("staging-1", "web"),
        ("staging-2", "cache-canary"),
        ("staging-2", "web-canary"),
    ]


def test_explain_names_the_layer_that_set_each_placements_namespace() -> None:
    plan = api.compile_spec(CASE / "fleet.py").plan
    namespaces = {
        placement.cluster: [(v.value, v.layer) for v in placement.values if v.key == "namespace"]
        for placement in explain_plan(plan, "web").apps[0].placements
    }
    # staging-1's is App.namespace, which explain shows on the app
    assert namespaces == {
        "staging-1": [],
        "staging-2": [("web-canary", "per_label[canary=true]")],
        "prod-a": [("web-prod", "per_env")],
        "prod-b": [("web-b", "per_cluster")],
    }


def test_validate_accepts_the_overlays_prefix_and_namespace(tmp_path: Path) -> None:
    """validate holds fleetgen's overlays to the kustomization fields it emits
    (`fleetgen.validate.schemas.KUSTOMIZATION`): namePrefix is one of them; ``--render`` checks
    each overlay's objects against its placements' namespace."""
    repo = case_copy(CASE, tmp_path / "repo")
    assert run_fleetgen(repo, "build").returncode == 0
    ran = run_fleetgen(repo, "validate")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "0 error(s), 0 warning(s)" in ran.stdout
    rendered = run_fleetgen(repo, "validate", "--render")  # the base's policy findings aside,
    assert "web-prod/east-web" in rendered.stdout  # prod's objects are checked in web-prod,
    assert "foreign-namespace" not in rendered.stdout  # which is their placements' namespace


def test_diff_derives_each_application_with_its_placements_namespace() -> None:
    """diff compares the Applications the ApplicationSets generate, derived from each compile's
    placements (`Placements` rows carry their namespace)."""
    result = api.compile_spec(CASE / "fleet.py")
    plan = result.plan
    files = {  # the ApplicationSets' files as emitted
        path: OutputFile(path, tuple(yaml.safe_load_all(data)))
        for path, data in result.rendered.items()
        if path.startswith("argocd/applicationsets/")
    }
    derived = derived_applications(plan.fleet, Placements.of(plan), files)
    assert {app.name: app.target_namespace for app in derived.values()} == {
        "cache-prod-b": "cache-prod",
        "cache-staging-1": "cache",
        "cache-staging-2": "cache-canary",
        "web-prod-b": "web-b",
        "web-staging-1": "web",
        "web-staging-2": "web-canary",
    }
    # a chart app's source is its template's, the same for each of them (no overlay path)
    sources = {
        dict(app.source).get("path") for app in derived.values() if app.owner.startswith("cache-")
    }
    assert sources == {"charts/echo"}


def test_diff_credits_a_namespace_to_the_apps_placed_in_it(tmp_path: Path) -> None:
    """The Namespace Flux creates on prod-a for prod's layer namespace is web's: diff reads the
    namespace of each placement (`Placements` rows), not App.namespace (`Context.apps_on`)."""
    repo = case_copy(CASE, tmp_path / "repo")
    git(repo, "init", "-q", "-b", "main")
    assert run_fleetgen(repo, "build").returncode == 0
    commit(repo, "fleet")
    edit(
        repo / "fleet.py",
        '"prod": Overrides(namespace="web-prod"',
        '"prod": Overrides(namespace="web-p2"',
    )
    edit(repo / "fleet.py", '"web", "web-prod",', '"web", "web-prod", "web-p2",')
    ran = run_fleetgen(repo, "diff", "--format", "json")
    namespaces = {
        (change["op"], change["name"]): change["apps"]
        for change in json.loads(ran.stdout)["changes"]
        if change["kind"] == "Namespace"
    }
    assert namespaces == {("added", "web-p2"): ["web"], ("removed", "web-prod"): ["web"]}


def test_a_chart_apps_release_goes_to_each_layers_namespace(tmp_path: Path) -> None:
    """A chart app's layer namespace is where its release goes on each engine: Flux's HelmRelease
    ``targetNamespace`` and ``storageNamespace`` (helm-controller ``action.Install`` /
    ``Upgrade`` release into the target namespace, storage in storageNamespace); Argo CD's
    Application destination, where ``helm template --namespace`` renders it (repo-server
    ``helmTemplate``). Helm's SDK renders each with ``.Release.Namespace`` set to it."""
    result = api.compile_spec(CASE / "fleet.py")
    assert {p.cluster: p.namespace for p in result.plan.placements if p.app == "cache"} == {
        "staging-1": "cache",
        "staging-2": "cache-canary",
        "prod-a": "cache-prod",
        "prod-b": "cache-prod",
    }
    release = next(
        doc
        for doc in yaml.safe_load_all(result.rendered["flux/clusters/prod-a/kustomizations.yaml"])
        if doc and doc["kind"] == "HelmRelease"
    )
    assert (release["spec"]["targetNamespace"], release["spec"]["storageNamespace"]) == (
        "cache-prod",
        "cache-prod",
    )
    repo = case_copy(CASE, tmp_path / "repo")
    assert run_fleetgen(repo, "build").returncode == 0
    ran = run_fleetgen(repo, "validate", "--render", "--format", "json")
    found = [f for f in json.loads(ran.stdout)["findings"] if f.get("app") == "cache"]
    # the echo chart's policy findings name each render's Deployment where Helm put it
    assert {f["object"]: f["clusters"] for f in found if f["rule"] == "probes"} == {
        "Deployment cache/cache": ["staging-1"],
        "Deployment cache-canary/cache": ["staging-2"],
        "Deployment cache-prod/cache": ["prod-a", "prod-b"],
    }
    assert not [f for f in found if f["rule"] == "foreign-namespace"]
