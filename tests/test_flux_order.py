"""``depends_on`` a chart app on Flux holds on upgrades, and a manual environment holds the gate
and wrapper with the release (issue #38, points 2 and 14): walked through in real Git
repositories holding golden case flux-layers (cert-manager ← infra-configs ← podinfo ← web).
No controller runs here; each test names the functions whose behaviour the output relies on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.diff.test_diff import commit, edit, git
from tests.helpers import run_fleetgen
from tests.test_draining import built, check_clean, diff_json, documents, repo_of

STAGING = "flux/clusters/staging-1/kustomizations.yaml"
PODINFO = "flux/releases/staging-1/podinfo/release.yaml"
ROOT = "flux-system"  # bootstrap's Kustomization, applying flux/clusters/<cluster>/
CASES = Path(__file__).parent / "cases"


def _objects(repo: Path, path: str) -> dict[tuple[str, str], dict[str, Any]]:
    return {(d["kind"], d["metadata"]["name"]): d for d in documents(repo, path)}


def _depends_on(kustomization: dict[str, Any]) -> list[str]:
    return [ref["name"] for ref in kustomization["spec"].get("dependsOn", [])]


def _output_path(kustomization: dict[str, Any]) -> str:
    """The output-relative folder a Kustomization applies."""
    return str(kustomization["spec"]["path"]).removeprefix("./output/")


def _applier(repo: Path, release: str) -> str:
    """The Kustomization that applies HelmRelease ``release`` on staging-1: the root, or the
    wrapper whose path holds it."""
    if ("HelmRelease", release) in _objects(repo, STAGING):
        return ROOT
    (name,) = (
        name
        for (kind, name), doc in _objects(repo, STAGING).items()
        if kind == "Kustomization"
        and (repo / "output" / _output_path(doc) / "release.yaml").is_file()
        and ("HelmRelease", release) in _objects(repo, _output_path(doc) + "/release.yaml")
    )
    return name


def test_a_chart_upgrade_holds_its_dependents_until_the_release_is_upgraded(
    tmp_path: Path,
) -> None:
    """kustomize-controller ``requestsForRevisionChangeOf`` queues every Kustomization of the
    GitRepository at a new revision at once; ``checkDependencies`` lets a Kustomization apply
    once each dependency is Ready at its observed generation with ``lastAppliedRevision`` the
    source's (same source only). So the gate must not health-check the HelmRelease before what
    applies it did: it ``dependsOn`` the root and, wrapped, the wrapper (both read the gate's
    GitRepository). Once applied, a changed HelmRelease has a generation helm-controller has not
    observed: ``checkHealth`` → fluxcd/pkg ``WaitForSetWithContext`` → kstatus ``Compute``
    (``checkGeneration``) reads it InProgress until helm-controller's ``Reconcile`` patches
    ``observedGeneration`` (``WithStatusObservedGeneration``, on success), Ready. An in-repo
    chart's version bump changes no other field of the HelmRelease: its ``chart.spec.version``,
    which source-controller ignores for a GitRepository (only ``buildFromHelmRepository`` reads
    it), makes it a new generation, and helm-controller's ``isSourceReady`` waits for the
    HelmChart rebuilt at that version."""
    repo = repo_of(tmp_path, "flux-layers")
    before = {
        "cert-manager": _objects(repo, STAGING)[("HelmRelease", "cert-manager")]["spec"],
        "podinfo": _objects(repo, PODINFO)[("HelmRelease", "podinfo")]["spec"],
    }
    edit(repo / "fleet.py", 'version="v1.16.2"', 'version="v1.17.0"')
    edit(repo / "charts/podinfo/Chart.yaml", "version: 6.7.1", "version: 6.8.0")
    report = diff_json(repo)
    changed = {(c["kind"], c["name"]) for c in report["changes"]}
    assert {("HelmRelease", "cert-manager"), ("HelmRelease", "podinfo")} <= changed
    assert not report["deletions"]
    built(repo)
    check_clean(repo)
    commit(repo, "upgrade cert-manager and podinfo")
    after = {
        "cert-manager": _objects(repo, STAGING)[("HelmRelease", "cert-manager")]["spec"],
        "podinfo": _objects(repo, PODINFO)[("HelmRelease", "podinfo")]["spec"],
    }
    assert after["podinfo"]["chart"]["spec"]["version"] == "6.8.0"
    staging = _objects(repo, STAGING).items()
    kustomizations = {name: doc for (kind, name), doc in staging if kind == "Kustomization"}
    for release, dependent in (("cert-manager", "infra-configs"), ("podinfo", "web")):
        assert after[release] != before[release]  # a new generation: kstatus waits for it
        gate = kustomizations[f"{release}.ready"]
        assert _depends_on(kustomizations[dependent]) == [gate["metadata"]["name"]]
        applier = _applier(repo, release)
        assert applier in _depends_on(gate)
        assert ROOT in _depends_on(gate)  # the root applies the wrapper's spec too
        assert gate["spec"]["healthChecks"][0]["name"] == release
        if applier != ROOT:  # the wrapper reads the gate's source: revisions are compared
            assert kustomizations[applier]["spec"]["sourceRef"] == gate["spec"]["sourceRef"]
            assert kustomizations[applier]["spec"]["wait"] is True
    assert _applier(repo, "podinfo") == "podinfo.release"


def test_a_manual_environment_suspends_the_gate_and_wrapper_with_the_release(
    tmp_path: Path,
) -> None:
    """helm-controller's ``Reconcile`` returns early for a suspended HelmRelease and its deferred
    patch marks the generation observed (``WithStatusObservedGeneration``) without a condition:
    kstatus ``Compute`` finds no Reconciling, Stalled or Ready condition and says Current, so an
    active gate (or the wrapper's ``wait``) would be Ready with nothing installed, and a wrapper
    left active re-applies ``suspend`` and holds its dependents (``checkDependencies``). With
    ``suspend`` kustomize-controller's ``Reconcile`` returns before ``checkDependencies`` or
    any health check, for the gate and wrapper as for the release."""
    repo = repo_of(tmp_path, "flux-layers")
    production = 'sync=SyncPolicy(interval="1h", timeout="5m")'
    edit(repo / "fleet.py", production, production.replace("(", "(automated=False, "))
    report = diff_json(repo)
    changed = {(c["kind"], c["name"]) for c in report["changes"]}
    held = {"cert-manager.ready", "podinfo.ready", "podinfo.release"}
    assert {("Kustomization", name) for name in held} <= changed
    assert any("suspended" in note and "production" in note for note in report["notes"])
    built(repo)
    check_clean(repo)
    objects = _objects(repo, "flux/clusters/production-1/kustomizations.yaml")
    for name in held:
        assert objects[("Kustomization", name)]["spec"]["suspend"] is True
    release = _objects(repo, "flux/releases/production-1/podinfo/release.yaml")
    assert release[("HelmRelease", "podinfo")]["spec"]["suspend"] is True
    assert "suspend" not in _objects(repo, STAGING)[("Kustomization", "podinfo.release")]["spec"]
    readme = (repo / "output/README.md").read_text()
    assert "a gate in front of a suspended HelmRelease" in readme


_IMPORTS = "from fleetgen import App,"
_FLEET_SOURCE = (
    'engines=["flux"],',
    'engines=["flux"], flux=FluxOptions(source=GitSource('
    'url="https://git.example.com/layers-output.git", secret_ref="output-git")),',
)


def test_with_its_own_source_the_gate_reads_what_applies_the_helm_release(
    tmp_path: Path,
) -> None:
    """kustomize-controller's ``checkDependencies`` compares a dependency's
    ``lastAppliedRevision`` with the source's only when both Kustomizations have the same
    ``sourceRef``, and ``requestsForRevisionChangeOf`` queues the Kustomizations indexed under
    the source that changed. With ``FluxOptions.source`` the fleet's Kustomizations read its
    GitRepository while bootstrap's root reads its own: an unwrapped gate reads the root's
    (bootstrap's, the fleet's repository at its revision, which holds the gate's empty folder in
    the commit that holds the cluster folder), a wrapped gate the wrapper's."""
    repo = repo_of(
        tmp_path,
        "flux-layers",
        (_IMPORTS, "from fleetgen import FluxOptions, GitSource, App,"),
        _FLEET_SOURCE,
    )
    objects = _objects(repo, STAGING)
    bootstrap = {"kind": "GitRepository", "name": ROOT, "namespace": ROOT}
    own = {"kind": "GitRepository", "name": "layers", "namespace": ROOT}
    gate, wrapped_gate = (
        objects[("Kustomization", "cert-manager.ready")],
        objects[("Kustomization", "podinfo.ready")],
    )
    assert _applier(repo, "cert-manager") == ROOT and ROOT in _depends_on(gate)
    assert gate["spec"]["sourceRef"] == bootstrap
    assert objects[("Kustomization", "infra-configs")]["spec"]["sourceRef"] == own
    wrapper = objects[("Kustomization", _applier(repo, "podinfo"))]
    assert wrapped_gate["spec"]["sourceRef"] == wrapper["spec"]["sourceRef"] == own
    readme = (repo / "output/README.md").read_text()
    assert "flux bootstrap git --url=https://git.example.com/layers.git " in readme
    tree = git(repo, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert f"output/{STAGING}" in tree
    assert f"{_output_path(gate)}/kustomization.yaml" in {p.removeprefix("output/") for p in tree}


def test_while_a_helm_release_moves_into_its_wrapper_the_gate_reads_the_roots_source(
    tmp_path: Path,
) -> None:
    """In a move's marked generation (`fleetgen.settle.moves`) the root still applies the
    HelmRelease, so the gate reads as an unwrapped one: it ``dependsOn`` the root alone and, with
    ``FluxOptions.source``, reads the root's (bootstrap's) GitRepository, or kustomize-controller's
    ``checkDependencies`` — which compares ``lastAppliedRevision`` only between Kustomizations
    of one ``sourceRef`` — would let it health-check the release before the root applied the
    revision that upgrades it. Once moved, it reads the wrapper's source and waits for both."""
    repo = repo_of(
        tmp_path,
        "flux-layers",
        (_IMPORTS, "from fleetgen import FluxOptions, GitSource, App,"),
        _FLEET_SOURCE,
        ('depends_on=["infra-configs"],', ""),  # podinfo unwrapped at first
    )
    bootstrap = {"kind": "GitRepository", "name": ROOT, "namespace": ROOT}
    unwrapped = _objects(repo, STAGING)[("Kustomization", "podinfo.ready")]
    assert unwrapped["spec"]["sourceRef"] == bootstrap and _depends_on(unwrapped) == [ROOT]
    edit(
        repo / "fleet.py",
        'chart=HelmChart(path="charts/podinfo"),',
        'chart=HelmChart(path="charts/podinfo"), depends_on=["infra-configs"],',
    )
    built(repo)
    assert _applier(repo, "podinfo") == ROOT  # marked: the root applies it
    assert _objects(repo, STAGING)[("Kustomization", "podinfo.ready")] == unwrapped
    commit(repo, "podinfo waits for infra-configs")
    built(repo, "--drained", "release/staging-1/podinfo")
    objects = _objects(repo, STAGING)
    gate = objects[("Kustomization", "podinfo.ready")]
    assert _applier(repo, "podinfo") == "podinfo.release"
    assert _depends_on(gate) == [ROOT, "podinfo.release"]
    own = {"kind": "GitRepository", "name": "layers", "namespace": ROOT}
    assert (
        gate["spec"]["sourceRef"]
        == objects[("Kustomization", "podinfo.release")]["spec"]["sourceRef"]
        == own
    )


_HUB = (
    'engines=["flux"], flux=FluxOptions(mode="hub", hub="staging-1", '
    'source_per_namespace=True, source=GitSource(url="https://git.example.com/layers.git", '
    'secret_ref="fleet-git")), '
    'default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),'
)


def test_a_spoke_namespace_with_its_own_source_warns_that_its_gate_checks_no_revision(
    tmp_path: Path,
) -> None:
    """With ``source_per_namespace`` (hubs run with ``--no-cross-namespace-refs``: kustomize-
    controller's ``getSource`` refuses another namespace's source) a spoke's gate reads the spoke
    namespace's GitRepository and the hub's root bootstrap's, so ``checkDependencies`` checks the
    root's Ready only: the build says so for the unwrapped chart app, not for the wrapped one,
    whose wrapper reads the spoke's source too."""
    repo = repo_of(
        tmp_path,
        "flux-layers",
        (_IMPORTS, "from fleetgen import ExternalSecretRef, FluxOptions, GitSource, App,"),
        ('engines=["flux"],', _HUB),
    )
    warnings = run_fleetgen(repo, "build").stderr
    assert "app 'cert-manager': with source_per_namespace, its gate on production-1" in warnings
    assert "app 'podinfo': with source_per_namespace" not in warnings
    spoke = _objects(repo, "flux/clusters/staging-1/spokes/production-1.yaml")
    spoke_source = {"kind": "GitRepository", "name": "layers"}
    assert spoke[("Kustomization", "cert-manager.ready")]["spec"]["sourceRef"] == spoke_source
    assert spoke[("Kustomization", "podinfo.release")]["spec"]["sourceRef"] == spoke_source


def test_a_spoke_gate_in_a_moves_first_step_checks_no_revision_and_the_note_says_so(
    tmp_path: Path,
) -> None:
    """In a move's first step the root applies the HelmRelease (`fleetgen.settle.moves`); with
    ``source_per_namespace`` a spoke's gate cannot read the root's source (kustomize-controller
    ``getSource`` refuses another namespace's), so ``checkDependencies`` compares no revision
    there: the move's note in ``diff`` says so for the spoke, not for the hub's own cluster."""
    repo = repo_of(
        tmp_path,
        "flux-layers",
        (_IMPORTS, "from fleetgen import ExternalSecretRef, FluxOptions, GitSource, App,"),
        ('engines=["flux"],', _HUB),
        ('depends_on=["infra-configs"],', ""),  # podinfo unwrapped at first
    )
    edit(
        repo / "fleet.py",
        'chart=HelmChart(path="charts/podinfo"),',
        'chart=HelmChart(path="charts/podinfo"), depends_on=["infra-configs"],',
    )
    built(repo)
    spoke = _objects(repo, "flux/clusters/staging-1/spokes/production-1.yaml")
    gate = spoke[("Kustomization", "podinfo.ready")]
    assert ("HelmRelease", "podinfo") in spoke and _depends_on(gate) == [ROOT]
    assert gate["spec"]["sourceRef"] == {"kind": "GitRepository", "name": "layers"}
    notes = [n for n in diff_json(repo)["notes"] if " moves, step by step" in n]
    assert [n.partition(" ")[0] for n in notes] == [
        "release/production-1/podinfo",
        "release/staging-1/podinfo",
    ]
    assert notes[0].endswith(
        "commit; until then its gate podinfo.ready on production-1 reads the spoke's "
        "GitRepository and the root another, so it checks only that the root is Ready: on an "
        "upgrade in this step, the apps that depend on podinfo may apply before its HelmRelease "
        "is upgraded"
    )
    assert notes[1].endswith("and commit")


def test_values_passed_through_a_config_map_change_the_helm_release(tmp_path: Path) -> None:
    """Values holding a null travel in ConfigMap ``<app>.values``; helm-controller reads it at
    each reconcile (fluxcd/pkg ``ChartValuesFromReferences``: the ``valuesKey`` must be there),
    but a ConfigMap changed alone leaves the HelmRelease's generation as it was, which kstatus
    ``checkGeneration`` (the gate's ``checkHealth``) reads Current: the dependents would not be
    held. The key is named after the text's hash, so new values are a new ``valuesKey``, a new
    generation of the HelmRelease; the ConfigMap keeps its name and its one key, so the root's
    prune deletes nothing."""
    nulls = ('values={"crds": {"enabled": True}}', 'values={"crds": {"enabled": True}, "x": None}')
    repo = repo_of(tmp_path, "flux-layers", nulls)
    before = _objects(repo, STAGING)
    edit(repo / "fleet.py", '"enabled": True}, "x"', '"enabled": False}, "x"')
    report = diff_json(repo)
    assert not report["deletions"]
    built(repo)
    after = _objects(repo, STAGING)
    config = [
        after[("ConfigMap", "cert-manager.values")],
        before[("ConfigMap", "cert-manager.values")],
    ]
    release = [after[("HelmRelease", "cert-manager")], before[("HelmRelease", "cert-manager")]]
    keys = [ref["valuesKey"] for r in release for ref in r["spec"]["valuesFrom"]]
    assert keys[0] != keys[1]  # a new generation: the gate holds infra-configs until it is upgraded
    assert [list(c["data"]) for c in config] == [[key] for key in keys]
    assert "enabled: false" in config[0]["data"][keys[0]]
    assert after[("Kustomization", "cert-manager.ready")]["spec"]["healthChecks"][0]["name"] == (
        "cert-manager"
    )


def test_the_fleet_map_keeps_the_root_from_waiting_where_a_gate_waits_for_it() -> None:
    """A gate ``dependsOn`` the root (``checkDependencies``); a root with ``wait`` would be Ready
    only once the gate it applies is (``checkHealth``; the gate's DependencyNotReady is InProgress
    to kstatus ``checkReadyCondition``): the bootstrap step says to keep it from waiting where a
    gate runs, and only there."""
    note = "keep its Kustomization `flux-system` without `wait`"
    gates = (CASES / "flux-layers/expected/README.md").read_text()
    assert note in gates and "neither would ever be Ready" in gates
    assert note not in (CASES / "chart-options/expected/README.md").read_text()
