"""``fleetgen diff`` on real temporary Git repositories: blast radius, deletions, renames, refs.

The fleet is small and self-contained; expectations come from its compiled Plan so the tests hold
for whatever objects the registered emitters produce for a placement.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

import fleetgen
from fleetgen.diffs import formats
from fleetgen.diffs.compare import RefSpecError
from fleetgen.diffs.report import Report, json_schema
from fleetgen.pipeline import api
from fleetgen.tools.kustomize import Kustomize
from tests.helpers import Ran, run_fleetgen

FLEET = """
from fleetgen import (App, Cluster, Environment, ExternalSecretRef, Fleet, Image, Overrides,
                      Project, Selector, SyncPolicy)
from helpers import API_TAG, TEAM

REPO = "https://git.example.com/fleet.git"
fleet = Fleet(
    name="shop", repo=REPO, engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[Environment(name="dev", engine="flux", sync=SyncPolicy(automated=True)),
                  Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True))],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com",
                labels={"tier": "gold"}),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com",
                labels={"tier": "gold"}),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com",
                labels={"tier": "gold"}, engine="flux"),
        Cluster(name="prod-c", env="prod", server="https://prod-c.example.com",
                labels={"tier": "silver"}),
    ],
    projects=[Project(name="shop", namespaces=["shop"], source_repos=[REPO])],
    apps=[
        App(name="web", project="shop", namespace="shop", path="apps/web/base",
            labels={"acme.io/team": TEAM},
            images=[Image(name="web", new_name="registry.example.com/web", tag="1.0")],
            per_env={"prod": Overrides(images=[Image(name="web", tag="1.0")])},
            per_cluster={"prod-c": Overrides(replicas={"web": 1})}),
        App(name="api", project="shop", namespace="shop", path="apps/api/base",
            targets=Selector(match_labels={"tier": "gold"}),
            images=[Image(name="api", new_name="registry.example.com/api", tag=API_TAG)]),
    ],
)
"""
BASES = {
    app: {
        "kustomization.yaml": "resources: [deployment.yaml]\n",
        "deployment.yaml": (
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {app}}}\n"
            f"spec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n"
            f"        - name: {app}\n          image: {app}\n"
        ),
    }
    for app in ("web", "api")
}
HELPERS = 'TEAM = "storefront"\nAPI_TAG = "2.0"\n'
WEB_PROD_TAG = 'per_env={"prod": Overrides(images=[Image(name="web", tag="1.0")])}'
PROD_B_GOLD = 'server="https://prod-b.example.com",\n                labels={"tier": "gold"}'
PROD_B_FLUX = '{"tier": "gold"}, engine="flux"'
PROD_A = 'name="prod-a", env="prod",'


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` with a fixed identity; its stdout."""
    done = subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def commit(repo: Path, message: str) -> str:
    """Commit everything in ``repo``; the new commit id."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must be there) by ``new`` in a file."""
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


def fleet_repo(root: Path, fleet: str, charts: dict[str, Path] | None = None) -> Path:
    """A Git repository at ``root`` on branch main holding the bases, ``fleet`` as fleet.py and
    ``charts`` (repository path -> chart folder to copy), committed (no output/)."""
    for app, files in BASES.items():
        (root / "apps" / app / "base").mkdir(parents=True)
        for name, text in files.items():
            (root / "apps" / app / "base" / name).write_text(text)
    for path, chart in (charts or {}).items():
        shutil.copytree(chart, root / path)
    (root / "fleet.py").write_text(fleet)
    (root / "helpers.py").write_text(HELPERS)
    git(root, "init", "-q", "-b", "main")
    commit(root, "fleet")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A Git repository on branch main holding the fleet, committed (no output/)."""
    return fleet_repo(tmp_path / "fleet-repo", FLEET)


def placed(spec: Path, app: str, env: str | None = None) -> list[str]:
    """Clusters the spec places ``app`` on (in ``env``), from its compiled Plan."""
    plan = api.compile_spec(spec).plan
    return sorted(p.cluster for p in plan.placements if p.app == app and env in (None, p.env))


def emitted(spec: Path, prefix: str) -> bool:
    """Whether the registered emitters write any file under ``prefix`` for this spec."""
    return any(path.startswith(prefix) for path in api.compile_spec(spec).rendered)


def state(repo: Path) -> tuple[str, ...]:
    """Everything diff must leave alone: status, refs, worktrees, stash, HEAD."""
    return tuple(
        git(repo, *args)
        for args in (
            ["status", "--porcelain", "--untracked-files=all"],
            ["for-each-ref"],
            ["worktree", "list", "--porcelain"],
            ["stash", "list"],
            ["rev-parse", "HEAD"],
            ["symbolic-ref", "HEAD"],
        )
    )


def run_cli(repo: Path, *args: str) -> Ran:
    return run_fleetgen(repo, "diff", *args)


def test_prod_image_change_reaches_exactly_the_prod_clusters_of_the_app(repo: Path) -> None:
    edit(repo / "fleet.py", WEB_PROD_TAG, WEB_PROD_TAG.replace('"1.0"', '"1.1"'))
    report = fleetgen.diff(repo / "fleet.py").to_json()
    prod_web = placed(repo / "fleet.py", "web", "prod")
    assert prod_web == ["prod-a", "prod-b", "prod-c"]
    assert report["touched"] == {
        "clusters": prod_web,
        "environments": ["prod"],
        "apps": ["web"],
        "projects": ["shop"],
    }
    assert report["production"]["environments"] == ["prod"]
    assert report["deletions"] == [] and report["renames"] == []
    assert report["changed"] and all(c["production"] for c in report["changes"])
    fields = [f for c in report["changes"] for f in c["fields"]]
    assert {"path": "images[name=web].newTag", "old": "1.0", "new": "1.1"} in fields


@pytest.mark.parametrize("layout", ["flux per-cluster", "flux hub", "argocd"])
def test_label_change_dropping_a_cluster_reports_the_placement_deletion(
    repo: Path, layout: str
) -> None:
    """api leaves prod-b: its engine's object there is deleted, and no object of the other."""
    if layout == "flux hub":
        edit(repo / "fleet.py", "Project, Selector", "FluxOptions, Project, Selector")
        edit(
            repo / "fleet.py",
            'engines=["argocd", "flux"],',
            'engines=["argocd", "flux"], flux=FluxOptions(mode="hub", hub="dev-1"),',
        )
        commit(repo, "flux hub mode")
    if layout == "argocd":
        edit(repo / "fleet.py", PROD_B_FLUX, PROD_B_FLUX.replace("flux", "argocd"))
        commit(repo, "prod-b on Argo CD")
    engine = layout.split()[0]
    edit(repo / "fleet.py", PROD_B_GOLD, PROD_B_GOLD.replace("gold", "bronze"))
    report = fleetgen.diff(repo / "fleet.py").to_json()
    assert report["placements"] == {
        "added": [],
        "removed": [{"app": "api", "cluster": "prod-b", "env": "prod"}],
        "moved": [],
    }
    assert report["touched"] == {
        "clusters": ["prod-b"],
        "environments": ["prod"],
        "apps": ["api"],
        "projects": ["shop"],
    }
    for deletion in report["deletions"]:
        assert deletion["clusters"] == ["prod-b"] and deletion["apps"] in ([], ["api"])
        assert deletion["workloads"] in (None, "orphaned")  # cascade_delete=False by default
    assert {d["engine"] for d in report["deletions"]} == {engine}
    names = {(d["kind"], d["name"]) for d in report["deletions"]}
    if engine == "flux":
        assert ("Kustomization", "api") in names
    else:
        assert ("Application", "api-prod-b") in names


def test_base_edit_shows_only_with_render(repo: Path, kustomize: Kustomize) -> None:
    edit(repo / "apps/web/base/deployment.yaml", "replicas: 2", "replicas: 2\n  paused: true")
    plain = fleetgen.diff(repo / "fleet.py")
    assert not plain.changed
    assert plain.to_json()["touched"]["clusters"] == []
    assert any("--render" in note and "web" in note for note in plain.notes)
    rendered = fleetgen.diff(repo / "fleet.py", render=True, kustomize=kustomize).to_json()
    assert rendered["rendered"] and rendered["changed"]
    assert rendered["touched"]["clusters"] == placed(repo / "fleet.py", "web")
    assert rendered["touched"]["apps"] == ["web"]
    deployments = [c for c in rendered["changes"] if c["source"] == "rendered"]
    assert {c["kind"] for c in deployments} == {"Deployment"}
    assert sorted(cluster for c in deployments for cluster in c["clusters"]) == placed(
        repo / "fleet.py", "web"
    )
    assert all(
        c["fields"] == [{"path": "spec.paused", "old": None, "new": True}] for c in deployments
    )


def test_render_reports_only_placements_whose_workloads_change(
    repo: Path, kustomize: Kustomize
) -> None:
    edit(repo / "apps/web/base/deployment.yaml", "replicas: 2", "replicas: 5")
    report = fleetgen.diff(repo / "fleet.py", render=True, kustomize=kustomize)
    assert sorted(report.touched.clusters) == ["dev-1", "prod-a", "prod-b"]  # prod-c pins 1


def test_no_change_exits_0_and_says_so(repo: Path) -> None:
    result = run_cli(repo)
    assert (result.returncode, result.stderr) == (0, "")
    assert "no changes" in result.stdout
    result = run_cli(repo, "--format", "json")
    assert result.returncode == 0 and '"changed": false' in result.stdout


def test_changes_exit_1_in_every_format_and_text_is_plain_off_a_terminal(repo: Path) -> None:
    edit(repo / "fleet.py", WEB_PROD_TAG, WEB_PROD_TAG.replace('"1.0"', '"1.1"'))
    outputs = {}
    for form in ("text", "markdown", "json"):
        result = run_cli(repo, "--format", form)
        assert (result.returncode, result.stderr) == (1, ""), form
        outputs[form] = result.stdout
    assert "\033[" not in outputs["text"] and "blast radius: 3 clusters" in outputs["text"]
    assert "<details open>" in outputs["markdown"]
    result = run_cli(repo, "--format", "markdown", "--json-file", "report.json")
    assert result.stdout == outputs["markdown"]
    assert json.loads((repo / "report.json").read_text()) == json.loads(outputs["json"])


def test_diff_leaves_worktree_index_and_refs_alone(repo: Path, kustomize: Kustomize) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    edit(repo / "fleet.py", PROD_B_GOLD, PROD_B_GOLD.replace("gold", "bronze"))
    commit(repo, "drop prod-b from api")
    edit(repo / "apps/web/base/deployment.yaml", "replicas: 2", "replicas: 3")
    (repo / "untracked.txt").write_text("x\n")
    git(repo, "add", "untracked.txt")  # something staged, too
    before = state(repo)
    report = fleetgen.diff(repo / "fleet.py", render=True, kustomize=kustomize)
    assert report.base.label == "merge-base of HEAD and main" and report.head.sha is None
    assert report.base.sha == git(repo, "rev-parse", "main").strip()
    assert state(repo) == before
    assert not list((repo / ".git").glob("worktrees/*"))


def test_base_without_a_spec_is_an_empty_fleet(repo: Path) -> None:
    empty = repo.parent / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "main")
    (empty / "README.md").write_text("fleet\n")
    first = commit(empty, "empty")
    for path in ("fleet.py", "helpers.py", "apps"):
        os.rename(repo / path, empty / path)
    head = commit(empty, "fleet")
    report = fleetgen.diff(empty / "fleet.py", base=first, head="HEAD").to_json()
    assert (report["base"], report["head"]) == (first, head)
    assert report["deletions"] == [] and {c["op"] for c in report["changes"]} == {"added"}
    assert report["touched"]["clusters"] == ["dev-1", "prod-a", "prod-b", "prod-c"]
    assert len(report["placements"]["added"]) == 7
    assert report["placements"]["moved"] == []


@pytest.mark.parametrize("broken", ["base", "head"])
def test_a_spec_error_at_either_ref_exits_2_naming_it(repo: Path, broken: str) -> None:
    edit(
        repo / "fleet.py",
        'namespace="shop", path="apps/api/base"',
        'namespace="shop", path="apps/nowhere"',
    )
    if broken == "base":
        commit(repo, "broken")
        git(repo, "checkout", "-q", "HEAD~1", "--", "fleet.py")
    result = run_cli(repo, "--base", "HEAD")
    assert result.returncode == 2
    assert "apps/nowhere" in result.stderr
    where = "HEAD" if broken == "base" else "worktree"
    assert f"problem(s) in the spec at {where}" in result.stderr
    with pytest.raises(RefSpecError) as raised:
        fleetgen.diff(repo / "fleet.py", base="HEAD")
    assert raised.value.ref == where


def test_a_bad_ref_or_no_spec_at_all_exits_2(repo: Path) -> None:
    result = run_cli(repo, "--base", "no-such-branch")
    assert result.returncode == 2 and "'no-such-branch' does not name a commit" in result.stderr
    result = run_cli(repo, "--spec", "flet.py")
    assert result.returncode == 2 and "flet.py exists at neither" in result.stderr
    plain = repo.parent / "plain"
    plain.mkdir()
    (plain / "fleet.py").write_text(FLEET)
    result = run_cli(plain)
    assert result.returncode == 2 and "is not inside a Git repository" in result.stderr


def test_a_repository_without_commits_explains_itself(tmp_path: Path) -> None:
    root = tmp_path / "new"
    root.mkdir()
    (root / "fleet.py").write_text(FLEET)
    git(root, "init", "-q", "-b", "main")
    result = run_cli(root)
    assert result.returncode == 2, result.stdout
    assert result.stderr.strip() == (
        "the repository has no commits yet, so there is nothing to compare with: commit "
        "fleet.py first; then `fleetgen diff` shows what your edits change"
    )


def test_a_branch_sharing_no_history_with_main_says_so(repo: Path) -> None:
    git(repo, "checkout", "-q", "--orphan", "unrelated")
    commit(repo, "a new root")
    result = run_cli(repo)
    assert result.returncode == 0, result.stderr
    assert (
        "HEAD (it shares no history with main, so there is no merge-base; pass --base REF "
        "to choose)"
    ) in result.stdout.splitlines()[0]


def test_cascade_delete_says_workloads_are_deleted(repo: Path) -> None:
    edit(
        repo / "fleet.py",
        'engines=["argocd", "flux"],',
        'engines=["argocd", "flux"], cascade_delete=True,',
    )
    commit(repo, "cascade")
    edit(repo / "fleet.py", PROD_B_GOLD, PROD_B_GOLD.replace("gold", "bronze"))
    report = fleetgen.diff(repo / "fleet.py").to_json()
    managing = [d for d in report["deletions"] if d["kind"] in ("Application", "Kustomization")]
    assert all(d["workloads"] == "deleted" for d in managing)
    if emitted(repo / "fleet.py", "flux/"):
        text = formats.markdown(fleetgen.diff(repo / "fleet.py"))
        assert f"{len(managing)} of these delete running workloads" in text


def test_removing_a_cluster_with_its_registration_orphans_its_workloads(repo: Path) -> None:
    """Cascade mode, prod-c removed: the root Application prunes its registration in the same
    sync as the ApplicationSet stops generating web-prod-c, and the Application's finalizer, which
    then finds no destination cluster, drops the cascade (argo-cd controller/appcontroller.go
    ``finalizeApplicationDeletion``): diff says orphaned, and how to delete them instead."""
    edit(
        repo / "fleet.py",
        'engines=["argocd", "flux"],',
        'engines=["argocd", "flux"], cascade_delete=True,',
    )
    commit(repo, "cascade")
    edit(
        repo / "fleet.py",
        'Cluster(name="prod-c", env="prod", server="https://prod-c.example.com",\n'
        '                labels={"tier": "silver"}),\n',
        "",
    )
    edit(
        repo / "fleet.py",
        ',\n            per_cluster={"prod-c": Overrides(replicas={"web": 1})}',
        "",
    )
    report = fleetgen.diff(repo / "fleet.py").to_json()
    removed = {(d["kind"], d["name"]): d["workloads"] for d in report["deletions"]}
    assert removed[("Application", "web-prod-c")] == "orphaned"
    assert any(
        note.startswith("cluster prod-c: its registration is removed in the same change")
        for note in report["notes"]
    )


def test_removing_an_app_that_narrows_its_project_orphans_its_workloads(repo: Path) -> None:
    """Cascade mode; api (alone in namespace shop-api) leaves prod-a, which keeps web and its
    registration: the AppProject loses destination prod-a/shop-api and syncs first (wave -1),
    and api-prod-a's finalizer deletes only what the project still permits (argo-cd
    ``finalizeApplicationDeletion`` → ``getPermittedAppLiveObjects``): nothing."""
    edit(
        repo / "fleet.py",
        'engines=["argocd", "flux"],',
        'engines=["argocd", "flux"], cascade_delete=True,',
    )
    edit(repo / "fleet.py", 'namespaces=["shop"]', 'namespaces=["shop", "shop-api"]')
    edit(
        repo / "fleet.py",
        'name="api", project="shop", namespace="shop"',
        'name="api", project="shop", namespace="shop-api"',
    )
    commit(repo, "cascade, api in its own namespace")
    edit(
        repo / "fleet.py",
        'targets=Selector(match_labels={"tier": "gold"})',
        'targets=Selector(match_labels={"tier": "gold"}, exclude=["prod-a"])',
    )
    report = fleetgen.diff(repo / "fleet.py").to_json()
    removed = {(d["kind"], d["name"]): d["workloads"] for d in report["deletions"]}
    assert removed[("Application", "api-prod-a")] == "orphaned"
    assert any(note.startswith("project shop: it no longer permits") for note in report["notes"])
    assert not any(note.startswith("cluster prod-a") for note in report["notes"])


def test_a_spec_in_a_subdirectory(repo: Path) -> None:
    (repo / "platform").mkdir()
    for path in ("fleet.py", "helpers.py", "apps"):
        os.rename(repo / path, repo / "platform" / path)
    commit(repo, "move")
    edit(repo / "platform/fleet.py", WEB_PROD_TAG, WEB_PROD_TAG.replace('"1.0"', '"1.1"'))
    report = fleetgen.diff(repo / "platform/fleet.py").to_json()
    assert report["touched"]["clusters"] == ["prod-a", "prod-b", "prod-c"]
    assert {c["file"] for c in report["changes"]} == {"output/overlays/web/prod/kustomization.yaml"}


def test_each_ref_imports_its_own_helper_modules(repo: Path) -> None:
    placed(repo / "fleet.py", "web")  # the caller has a `helpers` module of its own now
    mine = sys.modules["helpers"]
    (repo / "helpers.py").write_text(HELPERS.replace("2.0", "2.1"))
    report = fleetgen.diff(repo / "fleet.py")
    fields = {(f.path, f.old, f.new) for c in report.changes for f in c.fields}
    assert fields == {("images[name=api].newTag", "2.0", "2.1")}
    assert report.touched.apps == {"api"}
    assert sys.modules["helpers"] is mine


def test_a_cluster_rename_is_a_rename_not_a_silent_delete(repo: Path) -> None:
    for old, new in (
        ('name="prod-c"', 'name="prod-z"'),
        ('"prod-c": Overrides', '"prod-z": Overrides'),
    ):
        edit(repo / "fleet.py", old, new)
    report = fleetgen.diff(repo / "fleet.py").to_json()
    renames = report["renames"]
    assert renames and all(r["because"] == "cluster prod-c renamed to prod-z" for r in renames)
    assert any(
        r["from_file"] == "output/overlays/web/clusters/prod-c/kustomization.yaml"
        and r["file"] == "output/overlays/web/clusters/prod-z/kustomization.yaml"
        for r in renames
    )
    assert not [
        d
        for d in report["deletions"]
        if d["clusters"] == ["prod-c"] and d["kind"] in ("Application", "Kustomization")
    ]
    assert {"prod-c", "prod-z"} <= set(report["touched"]["clusters"])
    assert any("rename" in note for note in report["notes"])


def test_head_ref_compares_two_commits(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    edit(repo / "fleet.py", WEB_PROD_TAG, WEB_PROD_TAG.replace('"1.0"', '"1.1"'))
    second = commit(repo, "bump web in prod")
    (repo / "helpers.py").write_text(HELPERS.replace("2.0", "2.1"))  # uncommitted: ignored
    report = fleetgen.diff(repo / "fleet.py", base=first, head=second).to_json()
    assert (report["base"], report["head"]) == (first, second)
    assert report["touched"]["apps"] == ["web"]


def check_shape(value: Any, shape: dict[str, Callable[[Any], bool]]) -> None:
    assert set(value) == set(shape), sorted(set(value) ^ set(shape))
    for key, ok in shape.items():
        assert ok(value[key]), (key, value[key])


def is_names(value: Any) -> bool:
    return (
        isinstance(value, list)
        and value == sorted(value)
        and all(isinstance(v, str) for v in value)
    )


def opt_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


OBJECT = {
    "kind": lambda v: isinstance(v, str),
    "group": lambda v: isinstance(v, str),
    "name": lambda v: isinstance(v, str),
    "namespace": lambda v: isinstance(v, str),
    "cluster": opt_str,
    "clusters": is_names,
    "app": opt_str,
    "apps": is_names,
    "environments": is_names,
    "production": lambda v: isinstance(v, bool),
    "file": lambda v: isinstance(v, str),
}
FIELDS = {
    "fields": lambda v: isinstance(v, list) and all(set(f) == {"path", "old", "new"} for f in v)
}
TOUCHED = {k: is_names for k in ("clusters", "environments", "apps", "projects")}


def test_json_contract_shape(repo: Path) -> None:
    for old, new in (
        (PROD_B_GOLD, PROD_B_GOLD.replace("gold", "bronze")),
        ('name="prod-c"', 'name="prod-z"'),
        ('"prod-c": Overrides', '"prod-z": Overrides'),
        (WEB_PROD_TAG, WEB_PROD_TAG.replace('"1.0"', '"1.1"')),
    ):
        edit(repo / "fleet.py", old, new)
    report: Report = fleetgen.diff(repo / "fleet.py")
    data = report.to_json()
    check_shape(
        data,
        {
            "version": lambda v: v == 1,
            "base": lambda v: isinstance(v, str) and len(v) == 40,
            "head": lambda v: v == "worktree",
            "base_ref": opt_str,
            "head_ref": opt_str,
            "changed": lambda v: v is True,
            "rendered": lambda v: v is False,
            "touched": lambda v: check_shape(v, TOUCHED) is None,
            "production": lambda v: check_shape(v, TOUCHED) is None,
            "placements": lambda v: set(v) == {"added", "removed", "moved"},
            "deletions": lambda v: isinstance(v, list),
            "renames": lambda v: bool(v),
            "changes": lambda v: bool(v),
            "notes": lambda v: isinstance(v, list),
            "charts": lambda v: v == {"versions": [], "values": []},
            "not_rendered": lambda v: v == {},
        },
    )
    for deletion in data["deletions"]:
        check_shape(
            deletion,
            {
                **OBJECT,
                "source": opt_str,
                "op": lambda v: v == "removed",
                "engine": lambda v: v in ("argocd", "flux"),
                "workloads": lambda v: v in (None, "deleted", "orphaned"),
            },
        )
    for change in data["changes"]:
        check_shape(
            change,
            {
                **OBJECT,
                **FIELDS,
                "source": lambda v: v in ("generated", "derived", "rendered"),
                "op": lambda v: v in ("added", "removed", "changed"),
            },
        )
    for rename in data["renames"]:
        check_shape(
            rename,
            {
                **FIELDS,
                **{
                    k: OBJECT[k]
                    for k in ("kind", "group", "namespace", "cluster", "app", "file", "production")
                },
                "from": lambda v: isinstance(v, str),
                "to": lambda v: isinstance(v, str),
                "from_cluster": opt_str,
                "from_file": lambda v: isinstance(v, str),
                "because": lambda v: isinstance(v, str),
                "engine": opt_str,
                "workloads": lambda v: v in (None, "deleted", "orphaned"),
            },
        )
    production = [c["production"] for c in data["changes"]]
    assert production == sorted(production, reverse=True)  # production first
    errors = [
        e.message
        for e in jsonschema_rs.validator_for(json.loads(SCHEMA.read_text())).iter_errors(
            json.loads(formats.to_json(report))
        )
    ]
    assert errors == []


SCHEMA = Path(__file__).parents[2] / "docs" / "diff.schema.json"


def test_committed_json_schema_is_current() -> None:
    """docs/diff.schema.json is what the pydantic contract says (FLEETGEN_UPDATE_GOLDEN=1
    rewrites it)."""
    if os.environ.get("FLEETGEN_UPDATE_GOLDEN"):
        SCHEMA.write_text(json_schema())
    assert SCHEMA.read_text() == json_schema()


def test_an_engine_change_is_a_move_not_a_deletion(repo: Path) -> None:
    """prod-b from Flux to Argo CD: the Kustomizations go and leave the workloads
    (kustomize-controller ``finalizerShouldDeleteResources`` is false for deletionPolicy Orphan,
    so ``finalize`` deletes nothing), Argo CD adopts them; nothing is listed as a deletion."""
    edit(repo / "fleet.py", PROD_B_FLUX, PROD_B_FLUX.replace("flux", "argocd"))
    report = fleetgen.diff(repo / "fleet.py")
    data = report.to_json()
    assert data["placements"]["moved"] == [
        {
            "app": app,
            "cluster": "prod-b",
            "env": "prod",
            "from": "flux",
            "to": "argocd",
            "workloads": "orphaned",
            "production": True,
            "suspended": False,
        }
        for app in ("api", "web")
    ]
    assert data["placements"]["added"] == data["placements"]["removed"] == []
    assert data["deletions"] == []
    removed = {(c["kind"], c["name"]) for c in data["changes"] if c["op"] == "removed"}
    assert {("Kustomization", "api"), ("Kustomization", "web")} <= removed
    added = {(c["kind"], c["name"]) for c in data["changes"] if c["op"] == "added"}
    assert {("Application", "api-prod-b"), ("Application", "web-prod-b")} <= added
    assert data["touched"]["clusters"] == ["prod-b"]
    text = formats.text(report)
    assert "# moves (2), engine changes; the workloads stay:" in text
    assert (
        "  ~ api on prod-b (prod): flux → argocd; flux orphans the workloads, argocd adopts them"
    ) in text
    assert "deletions" not in text
    markdown = formats.markdown(report)
    assert "#### Moves (2)" in markdown and "#### Deletions" not in markdown
    assert (
        "| api | prod-b | prod | flux | argocd | flux orphans the workloads, argocd adopts "
        "them |" in markdown
    )


def test_a_cluster_moving_off_argocd_takes_its_registration_along(repo: Path) -> None:
    """prod-a from Argo CD to Flux: its Applications and its registration go with the move."""
    edit(repo / "fleet.py", PROD_A, PROD_A + ' engine="flux",')
    data = fleetgen.diff(repo / "fleet.py").to_json()
    assert [(m["app"], m["from"], m["to"]) for m in data["placements"]["moved"]] == [
        ("api", "argocd", "flux"),
        ("web", "argocd", "flux"),
    ]
    assert data["deletions"] == []
    removed = {(c["kind"], c["name"]) for c in data["changes"] if c["op"] == "removed"}
    assert {
        ("Application", "api-prod-a"),
        ("Application", "web-prod-a"),
        ("ExternalSecret", "cluster-prod-a"),
    } <= removed


def test_a_move_to_a_suspended_flux_placement_never_says_adopts(repo: Path) -> None:
    """prod-a from Argo CD to Flux in a prod whose sync turns manual: Flux gets the placements
    suspended (kustomize-controller's ``KustomizationReconciler.Reconcile`` returns before
    applying while ``spec.suspend`` is true), so the diff says they are suspended, not that Flux
    adopts the workloads (issue #39)."""
    manual = 'Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=False))'
    edit(repo / "fleet.py", manual.replace("False", "True"), manual)
    commit(repo, "prod manual")
    edit(repo / "fleet.py", PROD_A, PROD_A + ' engine="flux",')
    report = fleetgen.diff(repo / "fleet.py")
    assert [(m["app"], m["suspended"]) for m in report.to_json()["placements"]["moved"]] == [
        ("api", True),
        ("web", True),
    ]
    text, markdown = formats.text(report), formats.markdown(report)
    assert "adopts" not in text and "adopts" not in markdown
    assert (
        "  ~ api on prod-a (prod): argocd → flux; argocd orphans the workloads; flux is "
        "suspended: nothing deploys until its sync is set to automated in fleet.py"
    ) in text


def test_a_move_with_cascade_delete_says_the_workloads_are_recreated(repo: Path) -> None:
    edit(
        repo / "fleet.py",
        'engines=["argocd", "flux"],',
        'engines=["argocd", "flux"], cascade_delete=True,',
    )
    commit(repo, "cascade")
    edit(repo / "fleet.py", PROD_B_FLUX, PROD_B_FLUX.replace("flux", "argocd"))
    report = fleetgen.diff(repo / "fleet.py")
    assert {m.workloads for m in report.moved} == {"deleted"}
    assert report.deletions == ()
    text = formats.text(report)
    assert "! moves (2), engine changes; 2 delete and recreate running workloads:" in text
    assert (
        "flux deletes the workloads argocd takes over, in either order, and they stay down "
        "until argocd applies again (cascade_delete=True; a build refuses this: orphan first)"
    ) in text
    assert (
        "2 of these delete running workloads the new engine takes over: they stay down until "
        "it applies again (a build refuses them until they orphan)"
    ) in formats.markdown(report)


def _remove_a_hub_spoke(repo: Path) -> None:
    """Commit the fleet in Flux hub mode (hub dev-1), then remove its spoke prod-b (uncommitted)."""
    edit(repo / "fleet.py", "Project, Selector", "FluxOptions, Project, Selector")
    edit(
        repo / "fleet.py",
        'engines=["argocd", "flux"],',
        'engines=["argocd", "flux"], flux=FluxOptions(mode="hub", hub="dev-1"),',
    )
    commit(repo, "flux hub mode")
    edit(
        repo / "fleet.py", f'Cluster(name="prod-b", env="prod", {PROD_B_GOLD}, engine="flux"),', ""
    )


def test_a_spoke_leaving_the_hub_lists_no_kustomization_file_as_a_deletion(repo: Path) -> None:
    """kustomize's own kustomization.yaml under ``flux/spokes/<spoke>/`` is what
    kustomize-controller builds (``generate``, then ``build`` → fluxcd/pkg
    ``kustomize.SecureBuild``, which returns only the objects it lists), never an object it
    applies: removing the spoke deletes no nameless "flux Kustomization"."""
    _remove_a_hub_spoke(repo)
    report = fleetgen.diff(repo / "fleet.py").to_json()
    removed = {c["file"] for c in report["changes"] if c["op"] == "removed"}
    assert "output/flux/spokes/prod-b/kustomization.yaml" in removed
    deleted = {(d["kind"], d["namespace"], d["name"]) for d in report["deletions"]}
    assert ("Kustomization", "prod-b", "namespaces.fleetgen.io") in deleted
    assert all(name for _, _, name in deleted), deleted
    assert not any(d["file"].endswith("kustomization.yaml") for d in report["deletions"])


def test_a_spokes_hub_namespace_with_prune_disabled_is_kept_not_deleted(repo: Path) -> None:
    """In orphan mode the hub's Namespace of a spoke is annotated
    ``kustomize.toolkit.fluxcd.io/prune: disabled``: the hub's root Kustomization skips it
    (kustomize-controller ``deleteObjects`` excludes the annotation from fluxcd/pkg
    ``ResourceManager.DeleteAll``), so removing the spoke keeps the Namespace and what it holds;
    diff says so instead of listing it as deleted or orphaned."""
    _remove_a_hub_spoke(repo)
    result = fleetgen.diff(repo / "fleet.py")
    fates = {(d["kind"], d["name"]): d["workloads"] for d in result.to_json()["deletions"]}
    assert fates[("Namespace", "prod-b")] == "kept-prune-disabled"
    assert "Namespace prod-b on prod-b: workloads kept (prune disabled)" in run_cli(repo).stdout
