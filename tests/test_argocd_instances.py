"""One Argo CD instance per environment (`Environment(argocd=ArgoOptions(...))`,
`Fleet.argocd_instances`): each instance's folder holds only what that Argo CD reconciles, its
root Application reads only that folder, and an environment whose cascading Applications would
change instance is refused until they orphan (`fleetgen.settle.handover`). Walked through in real
Git repositories with the real CLI; no Argo CD runs here: each test names the controller function
its assertion follows (argo-cd v3.3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fleetgen.manifests.yamlio import load_all
from tests.diff.test_diff import commit, edit, git
from tests.helpers import case_copy, run_fleetgen

CASE = Path(__file__).parent / "cases" / "argocd-instances"
OWN = '                    argocd=ArgoOptions(namespace="gitops"),\n'


def built_repo(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    """A Git repository of the argocd-instances case (edited), built and committed."""
    repo = case_copy(CASE, tmp_path / "repo", *edits)
    git(repo, "init", "-q", "-b", "main")
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 0, ran.stderr
    commit(repo, "fleet")
    return repo


def docs(repo: Path, path: str) -> list[dict[str, Any]]:
    return [d for d in load_all((repo / "output" / path).read_text()) if isinstance(d, dict)]


def diff_json(repo: Path) -> dict[str, Any]:
    """``fleetgen diff --format json`` from the last commit to the working tree."""
    ran = run_fleetgen(repo, "diff", "--format", "json")
    assert ran.returncode == 1, ran.stderr  # something changes
    report: dict[str, Any] = json.loads(ran.stdout)
    return report


def test_each_instance_reads_its_own_folder_in_its_own_namespace(tmp_path: Path) -> None:
    """Argo CD's cluster generator lists the cluster Secrets of its own namespace only
    (applicationset/generators/cluster.go ``GenerateParams`` → ``utils.ListClusters`` in the
    controller's namespace), and a root Application with ``directory.recurse`` applies every
    manifest below its path (reposerver ``findManifests``): so each instance's folder must hold
    its environments' registrations, and nothing of another instance."""
    repo = built_repo(tmp_path)
    out = repo / "output"
    assert sorted(p.name for p in (out / "argocd/clusters").iterdir()) == [
        "dev-1.yaml",
        "staging-1.yaml",
    ]
    assert sorted(p.name for p in (out / "argocd-prod/clusters").iterdir()) == [
        "prod-a.yaml",
        "prod-b.yaml",
    ]
    root = docs(repo, "argocd-prod/bootstrap.yaml")[1]
    assert root["metadata"]["namespace"] == "gitops"
    assert root["spec"]["source"]["path"] == "output/argocd-prod"
    assert docs(repo, "argocd/bootstrap.yaml")[1]["spec"]["source"]["path"] == "output/argocd"
    prod_sets = docs(repo, "argocd-prod/applicationsets/api.yaml")
    assert [d["metadata"]["name"] for d in prod_sets] == ["api-prod"]
    assert {d["metadata"]["namespace"] for d in prod_sets} == {"gitops"}
    shared_sets = docs(repo, "argocd/applicationsets/api.yaml")
    assert [d["metadata"]["name"] for d in shared_sets] == ["api-dev", "api-staging"]
    # every project in every instance (an Application's finalizer needs its AppProject:
    # argo-cd finalizeApplicationDeletion → getAppProj), with that instance's destinations
    for folder, servers in (
        ("argocd", {"https://staging-1.example.com"}),
        ("argocd-prod", {"https://prod-a.example.com", "https://prod-b.example.com"}),
    ):
        project = docs(repo, f"{folder}/projects/platform.yaml")[0]
        assert {d["server"] for d in project["spec"]["destinations"]} == servers
    ran = run_fleetgen(repo, "validate")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    ran = run_fleetgen(repo, "explain", "prod-a")
    assert "  Argo CD instance: output/argocd-prod/\n" in ran.stdout


def test_a_file_dropped_into_an_instance_folder_is_reported(tmp_path: Path) -> None:
    repo = built_repo(tmp_path)
    (repo / "output/argocd-prod/projects/extra.yaml").write_text("kind: ConfigMap\n")
    ran = run_fleetgen(repo, "build", "--check")
    assert ran.returncode == 1
    assert ran.stderr.splitlines()[0].startswith(
        "output/argocd-prod/projects/extra.yaml: applied: not written by fleetgen, yet Argo "
        "CD's root Application"
    )


def test_an_instance_needs_argo_cd_in_the_fleet(tmp_path: Path) -> None:
    repo = case_copy(
        CASE,
        tmp_path / "repo",
        ('engines=["argocd"]', 'engines=["flux"]'),
        ("sync=Sync", "sync=Sync"),
    )
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 2
    line = next(
        n
        for n, text in enumerate((repo / "fleet.py").read_text().splitlines(), 1)
        if 'Environment(name="prod"' in text
    )
    assert (
        f"fleet.py:{line}: environment 'prod': argocd= names an Argo CD instance of its own, "
        "but Fleet(engines=['flux']) has no Argo CD; add 'argocd' there or drop argocd="
    ) in ran.stderr
    assert not (repo / "output").exists()


def test_cascading_applications_change_instance_only_after_they_orphan(tmp_path: Path) -> None:
    """The instance prod leaves prunes its ApplicationSets and Kubernetes' garbage collector
    deletes their Applications, whose resources finalizer deletes the workloads (argo-cd
    ``finalizeApplicationDeletion``). The ApplicationSet controller drops the finalizer from
    live Applications once the template has none (``createOrUpdateInCluster``:
    ``found.Finalizers = generatedApp.Finalizers``), so orphaning first makes the move safe."""
    cascade = ('engines=["argocd"],', 'engines=["argocd"],\n    cascade_delete=True,')
    repo = built_repo(tmp_path, (OWN, ""), cascade)
    template = docs(repo, "argocd/applicationsets/api.yaml")[2]["spec"]["template"]
    assert template["metadata"]["finalizers"] == ["resources-finalizer.argocd.argoproj.io"]
    fleet = repo / "fleet.py"
    prod = '        Environment(name="prod", sync=SyncPolicy(automated=True, prune=True),\n'
    edit(fleet, prod, prod + OWN)
    before = {p: p.read_bytes() for p in (repo / "output").rglob("*") if p.is_file()}
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 2
    line = fleet.read_text().splitlines().index(prod.rstrip("\n")) + 1
    assert ran.stderr.startswith(
        f"fleet.py:{line}: environment 'prod': its ApplicationSets move from output/argocd/ to "
        "output/argocd-prod/ (another Argo CD instance) while their Applications cascade"
    )
    assert {p: p.read_bytes() for p in (repo / "output").rglob("*") if p.is_file()} == before
    # step 1: orphan prod where it is; step 2: move it
    edit(fleet, OWN, "")
    edit(
        fleet,
        prod,
        prod.replace("prune=True),", "prune=True),\n" + " " * 20 + "cascade_delete=False,"),
    )
    assert run_fleetgen(repo, "build").returncode == 0
    assert (
        "finalizers"
        not in docs(repo, "argocd/applicationsets/api.yaml")[2]["spec"]["template"]["metadata"]
    )
    commit(repo, "orphan prod")
    edit(fleet, "cascade_delete=False,", "cascade_delete=False,\n" + OWN.strip())
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 0, ran.stderr
    assert [d["metadata"]["name"] for d in docs(repo, "argocd-prod/applicationsets/api.yaml")] == [
        "api-prod"
    ]
    assert [d["metadata"]["name"] for d in docs(repo, "argocd/applicationsets/api.yaml")] == [
        "api-dev",
        "api-staging",
    ]


def test_a_new_cluster_is_registered_with_its_environments_instance(tmp_path: Path) -> None:
    repo = built_repo(tmp_path)
    ran = run_fleetgen(
        repo, "add", "cluster", "prod-c", "--env", "prod", "--server", "https://prod-c.example.com"
    )
    assert ran.returncode == 0, ran.stderr
    assert "(see output/argocd-prod/clusters/prod-c.yaml)" in ran.stdout
    assert (repo / "output/argocd-prod/clusters/prod-c.yaml").is_file()
    assert not (repo / "output/argocd/clusters/prod-c.yaml").exists()


def test_diff_reads_an_environments_own_instance_as_it_reads_the_fleets(tmp_path: Path) -> None:
    """A cluster leaving prod: its registration and its Applications in output/argocd-prod/ are
    deletions on prod-b, in prod's instance's namespace, as they are for a cluster of the
    fleet's instance (`diff.blast.engine_of`, `attribute`; `diff.objects.scope_of`)."""
    repo = built_repo(tmp_path)
    edit(
        repo / "fleet.py",
        '        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),\n',
        "",
    )
    ran = run_fleetgen(repo, "diff")
    assert ran.returncode == 1, ran.stderr  # something changes
    deletions = ran.stdout.partition("! deletions (3):\n")[2].partition("# placements:")[0]
    assert deletions.splitlines() == [
        "  - argocd ExternalSecret gitops/cluster-prod-b on prod-b",
        "  - argocd Application gitops/api-prod-b on prod-b (app api): workloads orphaned",
        "  - argocd Application gitops/cert-manager-prod-b on prod-b (app cert-manager): "
        "workloads orphaned",
    ]
    on_prod_b = ran.stdout.partition("# prod-b (prod; production)\n")[2].partition("\n# ")[0]
    removed = "ExternalSecret gitops/cluster-prod-b: output/argocd-prod/clusters/prod-b.yaml"
    assert f"  @@ removed {removed} @@" in on_prod_b.splitlines()


def test_the_fleet_map_names_each_instances_floor(tmp_path: Path) -> None:
    """prod's own Argo CD keeps its own floor (its ArgoOptions' min_version, not the fleet's):
    the fleet map says what each instance needs, as validate checks each (`fleetmap.floors`)."""
    repo = built_repo(
        tmp_path,
        ('engines=["argocd"],', 'engines=["argocd"],\n    argocd=ArgoOptions(min_version="3.4"),'),
    )
    fleet_map = (repo / "output" / "README.md").read_text()
    assert "The output needs Argo CD ≥ 3.4 and Argo CD of prod ≥ 3.3.7:" in fleet_map
    assert (
        '| Argo CD of prod | ≥ 3.3.7 | `Environment(name="prod", '
        'argocd=ArgoOptions(min_version="3.3.7"))` | 3.4: a generator `selector`'
    ) in fleet_map


def test_a_cascading_cluster_changes_instance_only_after_its_placements_orphan(
    tmp_path: Path,
) -> None:
    """prod-b moves from prod (instance argocd-prod) to staging (the fleet's instance): the
    ApplicationSets differ (``api-prod`` → ``api-staging``) but generate the same Application
    ``api-prod-b``, and both instances track its workloads by that name (argo-cd
    util/argo ``GetAppName``, the ``argocd.argoproj.io/instance`` label), so the leaving instance's
    finalizer (``finalizeApplicationDeletion``) would delete what the other just adopted.
    Refused at the cluster, with the steps; orphan first (the ApplicationSet controller drops
    the finalizer: ``createOrUpdateInCluster`` sets the live Applications' finalizers to the
    template's, keeping only pre/post-delete hooks), then the move builds. ``diff`` at each
    step says what Argo CD does: orphaning deletes nothing; at the move the leaving instance's
    Applications go without a finalizer, so ``finalizeApplicationDeletion`` deletes nothing
    (it deletes only when ``CascadedDeletion()``), and the other's adopt the workloads."""
    cascade = ('engines=["argocd"],', 'engines=["argocd"],\n    cascade_delete=True,')
    repo = built_repo(tmp_path, cascade)
    fleet = repo / "fleet.py"
    prod_b = '        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),'
    moved = prod_b.replace('env="prod"', 'env="staging"')
    edit(fleet, prod_b, moved)
    before = {p: p.read_bytes() for p in (repo / "output").rglob("*") if p.is_file()}
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 2
    line = fleet.read_text().splitlines().index(moved) + 1
    assert ran.stderr.splitlines() == [
        f"fleet.py:{line}: cluster 'prod-b': the Applications of api, cert-manager on it move "
        "from output/argocd-prod/ to output/argocd/ (another Argo CD instance) while they "
        "cascade: both instances track the workloads by Application name, so the instance they "
        "leave would delete what the other has just taken over (argo-cd "
        "finalizeApplicationDeletion). First set those placements to orphan where the cluster "
        "is now (Environment(cascade_delete=False) on its environment there, or "
        "App(cascade_delete=False) on those apps), build, commit and let Argo CD sync, so the "
        "Applications lose their finalizer; then move the cluster",
        "1 problem(s); nothing was written",
    ]
    assert {p: p.read_bytes() for p in (repo / "output").rglob("*") if p.is_file()} == before
    # step 1: orphan prod's placements where prod-b is; step 2: move it
    edit(fleet, moved, prod_b)
    prod = '        Environment(name="prod", sync=SyncPolicy(automated=True, prune=True),\n'
    edit(fleet, prod, prod + " " * 20 + "cascade_delete=False,\n")
    assert run_fleetgen(repo, "build").returncode == 0
    template = docs(repo, "argocd-prod/applicationsets/api.yaml")[0]["spec"]["template"]
    assert "finalizers" not in template["metadata"]
    report = diff_json(repo)
    assert (report["deletions"], report["notes"]) == ([], [])
    assert {c["name"]: c["fields"] for c in report["changes"]} == {
        f"{app}-prod": [
            {
                "path": "spec.template.metadata.finalizers",
                "old": ["resources-finalizer.argocd.argoproj.io"],
                "new": None,
            },
            {"path": "spec.syncPolicy.preserveResourcesOnDeletion", "old": False, "new": True},
        ]
        for app in ("api", "cert-manager")
    }
    commit(repo, "orphan prod")
    edit(fleet, prod_b, moved)
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 0, ran.stderr
    assert (repo / "output/argocd/clusters/prod-b.yaml").exists()
    report = diff_json(repo)
    assert [
        (d["kind"], d["namespace"], d["name"], d["workloads"]) for d in report["deletions"]
    ] == [
        ("ExternalSecret", "gitops", "cluster-prod-b", None),
        ("Application", "gitops", "api-prod-b", "orphaned"),
        ("Application", "gitops", "cert-manager-prod-b", "orphaned"),
    ]
    assert sorted(
        (c["namespace"], c["name"])
        for c in report["changes"]
        if c["op"] == "added" and c["kind"] == "Application"
    ) == [("argocd", "api-prod-b"), ("argocd", "cert-manager-prod-b")]
    assert report["placements"] == {"added": [], "removed": [], "moved": []}
    assert (
        "Applications api-prod-b, cert-manager-prod-b on prod-b change Argo CD instance "
        "(output/argocd-prod/ → output/argocd/): both track the workloads by Application name; "
        "the output/argocd-prod/ instance removes its Applications, deleting nothing "
        "(workloads orphaned), and the output/argocd/ instance's adopt them on their first sync"
    ) in report["notes"]
    assert not any(n.startswith("order of events") for n in report["notes"])


def test_in_orphan_mode_a_cluster_changes_instance_in_one_commit(tmp_path: Path) -> None:
    """Without the resources finalizer the leaving instance's Applications go deleting nothing
    (``finalizeApplicationDeletion``) and the other adopts the workloads."""
    repo = built_repo(tmp_path)
    prod_b = '        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),'
    edit(repo / "fleet.py", prod_b, prod_b.replace('env="prod"', 'env="staging"'))
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 0, ran.stderr
