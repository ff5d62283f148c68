"""Remote kustomize bases: a base's kustomization lists a Git repository's base at a pinned ref.

Through the real CLI, with real Git repositories created in tmp dirs and reached as ``file://``
URLs (kustomize clones them with ``git``: ``ClonerUsingGitExec``), never the network: build reads
no remote, refuses an unpinned ref at the line that lists it, and bounds what it cannot read;
the overlays it emits build with real kustomize on top of the remote; ``validate --render`` and
``diff --render`` render them and say so clearly when the remote cannot be fetched.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from fleetgen.inputs import reading, workspace
from fleetgen.rules import remotebase
from fleetgen.tools.kustomize import Kustomize, build
from tests.helpers import run_fleetgen
from tests.test_validate import deployment, spec_line

CONFIG = ("user.name=t", "user.email=t@example.com", "init.defaultBranch=main")
GIT = ["git", *(arg for setting in CONFIG for arg in ("-c", setting))]
SHA = "0123456789abcdef0123456789abcdef01234567"
FLEET = """\
from fleetgen import (App, Cluster, Environment, ExternalSecretRef, Fleet, Image, Overrides,
                      Project)

fleet = Fleet(
    name="t",
    repo="https://git.example.com/t.git",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{{cluster}}"),
    environments=[Environment(name="dev", engine="flux"),
                  Environment(name="prod", engine="argocd")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
              Cluster(name="prod-1", env="prod", server="https://prod-1.example.com")],
    projects=[Project(name="team", namespaces={namespaces}{project})],
    apps=[
        App(name="web", project="team", path="apps/web"{app}),  # <- web
    ],
)
"""


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def upstream(
    root: Path, image: str = "registry.example.com/web:1.0", *extra: dict[str, Any]
) -> tuple[str, str]:
    """A Git repository at ``root`` whose ``deploy/`` is a kustomize base (Deployment web in
    namespace upstream, running ``image``, and the ``extra`` objects), committed and tagged
    v1.2.3: its ``file://`` URL and the commit's SHA."""
    base = root / "deploy"
    base.mkdir(parents=True, exist_ok=True)
    doc = deployment("web")
    doc["metadata"]["namespace"] = "upstream"
    doc["spec"]["template"]["spec"]["containers"][0]["image"] = image
    (base / "web.yaml").write_text(yaml.safe_dump_all([doc, *extra], sort_keys=False))
    (base / "kustomization.yaml").write_text("resources:\n- web.yaml\n")
    if not (root / ".git").exists():
        _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", f"web {image}")
    _git(root, "tag", "-f", "v1.2.3")
    return root.resolve().as_uri(), _git(root, "rev-parse", "HEAD")


def fleet_repo(
    root: Path,
    resources: list[str],
    app: str = ', namespace="web"',
    namespaces: str = '["web"]',
    project: str = "",
) -> Path:
    """A fleet repo with one app, web, whose base (apps/web) lists ``resources``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "fleet.py").write_text(FLEET.format(app=app, namespaces=namespaces, project=project))
    base = root / "apps" / "web"
    base.mkdir(parents=True)
    (base / "kustomization.yaml").write_text(
        "resources:\n" + "".join(f"- {entry}\n" for entry in resources)
    )
    return root


@pytest.mark.parametrize(
    ("entry", "remote"),
    [
        ("https://github.com/org/repo//deploy?ref=v1.2.3", True),
        ("github.com/org/repo/deploy?ref=v1.2.3", True),
        ("git@github.com:org/repo.git//deploy?ref=v1.2.3", True),
        ("ssh://git@git.example.com/org/repo.git//deploy?ref=v1.2.3", True),
        ("file:///srv/git/repo//deploy?ref=v1.2.3", True),
        ("git::https://git.example.com/org/repo//deploy?ref=v1.2.3", True),
        ("https://example.com/install.yaml", True),  # a remote file (IsRemoteFile)
        ("deployment.yaml", False),
        ("../common", False),
        ("github.company.com/org/repo", False),  # no scheme, not GitHub: a local path
    ],
)
def test_remote_entries_are_those_kustomize_clones_or_downloads(entry: str, remote: bool) -> None:
    """kustomize's ``FileLoader.New`` clones every entry ``git.NewRepoSpecFromURL`` parses (a
    scheme, ``user@`` or ``github.com``: ``extractHost``/``validateScheme``); ``IsRemoteFile``
    downloads http(s) files."""
    assert remotebase.is_remote(entry) is remote


@pytest.mark.parametrize(
    ("entry", "pinned"),
    [
        (f"https://github.com/org/repo//deploy?ref={SHA}", True),
        ("https://github.com/org/repo//deploy?ref=v1.2.3", True),
        ("https://github.com/org/repo//deploy?version=1.2.3-rc.1", True),  # parseQuery: version
        ("https://github.com/org/repo//deploy?ref=api/v0.4.0", True),
        ("https://github.com/org/repo//deploy?ref=main&version=v1.0.0", False),  # ref wins
        ("https://github.com/org/repo//deploy", False),
        ("https://github.com/org/repo//deploy?ref=HEAD", False),
        ("https://github.com/org/repo//deploy?ref=release-1.2", False),
        ("https://github.com/org/repo//deploy?ref=0123abc", False),
        ("https://example.com/install.yaml", False),
    ],
)
def test_only_a_commit_sha_or_a_version_tag_pins(entry: str, pinned: bool) -> None:
    assert (remotebase.unpinned(entry) is None) is pinned


def test_build_refuses_each_unpinned_remote_at_the_line_that_lists_it(tmp_path: Path) -> None:
    url = "https://git.example.com/org/repo//deploy"
    repo = fleet_repo(
        tmp_path / "repo",
        [
            f"{url}?ref={SHA}",
            f"{url}?ref=main",
            url,
            f"{url}?ref=0123abc",
            f"{url}?ref=v1.2.3",
        ],
    )
    result = run_fleetgen(repo, "build")
    assert result.returncode == 2, result.stdout + result.stderr
    where = "apps/web/kustomization.yaml"
    assert result.stderr.splitlines() == [
        f"{where}:3: app 'web': the remote resource on this line has ref 'main', which may be a "
        "branch (fleetgen cannot tell a branch from a tag offline), so what it fetches can "
        f"change at each build; {remotebase.PIN_HINT}",
        f"{where}:4: app 'web': the remote resource on this line has no ref, so what kustomize "
        "fetches (the repository's HEAD, or the file as it is then) can change at each build; "
        f"{remotebase.PIN_HINT}",
        f"{where}:5: app 'web': the remote resource on this line has ref '0123abc', an abbreviated "
        "commit, which `git fetch` cannot fetch by itself (kustomize fetches URL and ref with "
        f"git fetch --depth=1); {remotebase.PIN_HINT}",
        "3 problem(s); nothing was written",
    ]
    assert not (repo / "output").exists()


def test_build_reads_no_remote_and_warns_that_flux_needs_remote_bases(tmp_path: Path) -> None:
    """Nothing is fetched (the host cannot resolve); the Flux placement is told what
    kustomize-controller needs: ``--no-remote-bases=false`` (main.go's default; the reconciler's
    ``build`` passes ``!NoRemoteBases`` to fluxcd/pkg ``kustomize.SecureBuild``)."""
    repo = fleet_repo(tmp_path / "repo", [f"https://git.invalid/org/repo//deploy?ref={SHA}"])
    result = run_fleetgen(repo, "build")
    assert result.returncode == 0, result.stderr
    warnings = [
        line
        for line in result.stderr.splitlines()
        if "warning: app 'web'" in line and "--no-remote-bases=false" in line
    ]
    assert len(warnings) == 1  # (the others: Argo CD's whitelist, the suspended environment)
    assert warnings[0].startswith(f"fleet.py:{spec_line(repo, '<- web')}: warning: app 'web': ")
    assert "(apps/web/kustomization.yaml:2)" in warnings[0]


@pytest.mark.parametrize(("project", "warned"), [("", True), (", cluster_resources=[]", False)])
def test_build_warns_that_argo_cd_refuses_unlisted_kinds_of_a_remote_base(
    tmp_path: Path, project: str, warned: bool
) -> None:
    """argo-cd's ``AppProject.IsGroupKindNamePermitted`` permits a cluster-scoped object only
    when ``clusterResourceWhitelist`` lists its group and kind; with ``cluster_resources`` unset
    the AppProject lists only what the base's own files ship, so build warns at the app's line
    for its Argo CD placement (prod) and says where to list the remote's kinds; a project that
    sets ``cluster_resources`` has said what it permits, and is not warned."""
    repo = fleet_repo(
        tmp_path / "repo", [f"https://git.invalid/org/repo//deploy?ref={SHA}"], project=project
    )
    result = run_fleetgen(repo, "build")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "Argo CD refuses" in line]
    assert len(warnings) == warned, result.stderr
    if warned:
        assert warnings[0] == (
            f"fleet.py:{spec_line(repo, '<- web')}: warning: app 'web': its base lists remote "
            "bases (apps/web/kustomization.yaml:2), whose cluster-scoped objects Argo CD "
            "refuses at sync: project 'team' leaves cluster_resources unset, so its AppProject "
            "permits only the kinds the base's own files ship (none); list every "
            "cluster-scoped kind the app creates in Project(cluster_resources=[...]) "
            "(validate --render names those refused)"
        )


def test_emitted_overlays_build_on_the_remote_with_real_kustomize(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """The overlays reach the base dir as for a local base; kustomize fetches the remote at the
    pinned commit (``ClonerUsingGitExec``: git fetch --depth=1 URL SHA) and the layers apply on
    top: namespace rewrite, image, replicas, config merged into the base's own ConfigMap."""
    url, sha = upstream(tmp_path / "upstream")
    repo = fleet_repo(
        tmp_path / "repo",
        [f"{url}//deploy?ref={sha}", "settings.yaml"],
        app=', namespace="web", images=[Image(name="registry.example.com/web", tag="2.0")], '
        'config={"settings": {"LEVEL": "info"}}, per_env={"prod": Overrides(replicas={"web": 3})}',
    )
    (repo / "apps/web/settings.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  LEVEL: debug\n"
    )
    assert run_fleetgen(repo, "build").returncode == 0
    shutil.rmtree(tmp_path / "upstream" / "deploy")  # the working tree: kustomize reads Git
    for env, replicas in (("dev", None), ("prod", 3)):
        docs = list(yaml.safe_load_all(build(repo / "output/overlays/web" / env, kustomize)))
        kinds = {doc["kind"]: doc for doc in docs}
        web = kinds["Deployment"]
        assert web["metadata"]["namespace"] == "web"
        assert web["spec"]["template"]["spec"]["containers"][0]["image"] == (
            "registry.example.com/web:2.0"
        )
        assert web["spec"].get("replicas") == replicas
        assert kinds["ConfigMap"]["data"] == {"LEVEL": "info"}


def test_validate_render_fetches_the_remote_and_names_it_when_it_cannot(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    url, sha = upstream(tmp_path / "upstream")
    repo = fleet_repo(tmp_path / "repo", [f"{url}//deploy?ref=v1.2.3"])  # a version tag
    assert run_fleetgen(repo, "build").returncode == 0
    result = run_fleetgen(repo, "validate", "--render", "--format", "json")
    assert "Traceback" not in result.stderr, result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert not [f for f in findings if f["rule"] == "kustomize-build"]
    gone = (tmp_path / "gone").as_uri()
    (repo / "apps/web/kustomization.yaml").write_text(f"resources:\n- {gone}//deploy?ref={sha}\n")
    assert run_fleetgen(repo, "build").returncode == 0
    result = run_fleetgen(repo, "validate", "--render", "--format", "json")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stdout + result.stderr
    failed = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "kustomize-build"]
    assert {f["app"] for f in failed} == {"web"}
    assert all("remote base" in f["message"] for f in failed)


def test_cluster_scoped_kinds_of_a_remote_base_are_declared_on_the_project(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """The AppProject's derived clusterResourceWhitelist knows only what the base's own files
    ship; a remote's ClusterRole is refused by Argo CD (controller/sync.go
    ``validateSyncPermissions``), which ``validate --render`` reports until the project
    declares the kind."""
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "web-reader"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
    }
    url, sha = upstream(tmp_path / "upstream", "registry.example.com/web:1.0", role)
    for project, refused in (("", {"web"}), (_CLUSTER_ROLE, set())):
        repo = fleet_repo(
            tmp_path / f"repo{bool(project)}", [f"{url}//deploy?ref={sha}"], project=project
        )
        assert run_fleetgen(repo, "build").returncode == 0
        result = run_fleetgen(repo, "validate", "--render", "--format", "json")
        findings = json.loads(result.stdout)["findings"]
        kinds = {
            f["app"] for f in findings if f["rule"] == "cluster-kind" and "prod-1" in f["clusters"]
        }
        assert kinds == refused, result.stdout


_CLUSTER_ROLE = ', cluster_resources=[("rbac.authorization.k8s.io", "ClusterRole")]'


def test_diff_render_shows_what_a_new_pin_changes_and_names_a_remote_it_cannot_fetch(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """Moving the pin to another commit of the remote changes only the base's kustomization;
    ``diff --render`` renders both refs (each fetching its own commit) and shows the workload
    change."""
    url, old = upstream(tmp_path / "upstream")
    repo = fleet_repo(tmp_path / "repo", [f"{url}//deploy?ref={old}"])
    assert run_fleetgen(repo, "build").returncode == 0
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "web at its first commit")
    _, new = upstream(tmp_path / "upstream", image="registry.example.com/web:1.1")
    kustomization = repo / "apps/web/kustomization.yaml"
    kustomization.write_text(kustomization.read_text().replace(old, new))
    result = run_fleetgen(repo, "diff", "--render", "--base", "HEAD", "--format", "json")
    assert result.returncode == 1, result.stderr  # something changes
    rendered = [c for c in json.loads(result.stdout)["changes"] if c["source"] == "rendered"]
    assert {(c["kind"], c["name"]) for c in rendered} == {("Deployment", "web")}
    fields = [f for c in rendered for f in c["fields"]]
    assert {(f["old"], f["new"]) for f in fields if f["path"].endswith(".image")} == {
        ("registry.example.com/web:1.0", "registry.example.com/web:1.1")
    }
    gone = (tmp_path / "gone").as_uri()
    kustomization.write_text(f"resources:\n- {gone}//deploy?ref={new}\n")
    result = run_fleetgen(repo, "diff", "--render", "--base", "HEAD")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "a remote base could not be fetched" in result.stderr


def test_remote_content_of_an_app_without_namespace_may_use_any_namespace_its_project_allows(
    tmp_path: Path,
) -> None:
    """fleetgen cannot list the namespaces a remote base uses, so an App(namespace=None) on one
    gets, as an app from another source does, every namespace its project allows: its
    AppProject destinations name them (patterns included: Argo CD matches them as globs)."""
    repo = fleet_repo(
        tmp_path / "repo",
        [f"https://git.example.com/org/addons//deploy?ref={SHA}"],
        app=", namespace=None",
        namespaces='["addons", "addons-*"]',
    )
    assert run_fleetgen(repo, "build").returncode == 0
    project = yaml.safe_load((repo / "output/argocd/projects/team.yaml").read_text())
    assert {d["namespace"] for d in project["spec"]["destinations"]} == {"", "addons", "addons-*"}


def test_a_tenant_needs_named_namespaces_for_remote_content_without_namespace(
    tmp_path: Path,
) -> None:
    """A tenant project binds its ServiceAccount in each namespace its apps use, which a
    pattern cannot name."""
    repo = fleet_repo(
        tmp_path / "repo",
        [f"https://git.example.com/org/addons//deploy?ref={SHA}"],
        app=", namespace=None",
        namespaces='["addons-*"]',
        project=', service_account="deployer"',
    )
    result = run_fleetgen(repo, "build")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"fleet.py:{spec_line(repo, '<- web')}: app 'web': project 'team' binds its "
        "ServiceAccount in the namespaces the remote resources of its base (namespace=None) "
        "may use, which must be named, not patterns: list them in Project(namespaces=[...])",
        "1 problem(s); nothing was written",
    ]


def test_config_for_a_configmap_the_base_does_not_define_is_declared_in_the_base(
    tmp_path: Path,
) -> None:
    """kustomize's configMapGenerator merges into an existing ConfigMap (behavior: merge) or
    creates a new one, and fails on the other: whether a remote base ships it is unknown until
    the base says so with a generator of its own."""
    remote = f"https://git.example.com/org/repo//deploy?ref={SHA}"
    repo = fleet_repo(
        tmp_path / "repo", [remote], app=', namespace="web", config={"web": {"LEVEL": "info"}}'
    )
    result = run_fleetgen(repo, "build")
    assert result.returncode == 2
    assert result.stderr.splitlines()[0].startswith(
        f"fleet.py:{spec_line(repo, '<- web')}: app 'web': config for ConfigMap 'web', which "
        "the base's own files do not define: its remote bases (apps/web/kustomization.yaml:2)"
    )
    (repo / "apps/web/kustomization.yaml").write_text(
        f"resources:\n- {remote}\nconfigMapGenerator:\n- name: web\n  behavior: merge\n"
    )
    assert run_fleetgen(repo, "build").returncode == 0
    overlay = yaml.safe_load((repo / "output/overlays/web/dev/kustomization.yaml").read_text())
    assert overlay["configMapGenerator"][0]["behavior"] == "merge"


def test_the_inventory_lists_remote_entries_at_their_lines_and_reads_none(tmp_path: Path) -> None:
    """Remote entries of the base's kustomizations, nested local ones and components included,
    at the line that lists each; the base is not ``complete`` and nothing was read for them."""
    remote = f"https://git.example.com/org/repo//deploy?ref={SHA}"
    base = tmp_path / "apps/web"
    (base / "local").mkdir(parents=True)
    (base / "kustomization.yaml").write_text(
        f"resources:\n- local\n- {remote}\ncomponents:\n- git@git.example.com:org/c//x?ref=v1.0.0\n"
    )
    (base / "local/kustomization.yaml").write_text(f"# nested\nresources:\n  - {remote}\n")
    reads: list[str] = []
    disk = reading.filesystem_reader(tmp_path)

    def read(path: str) -> bytes | None:
        reads.append(path)
        return disk(path)

    found = workspace.scan(read, ["apps/web"]).bases["apps/web"]
    assert [(r.file, r.line) for r in found.remotes] == [
        ("apps/web/kustomization.yaml", 3),
        ("apps/web/kustomization.yaml", 5),
        ("apps/web/local/kustomization.yaml", 3),
    ]
    assert not found.complete and not found.problems
    assert not [path for path in reads if "example.com" in path]
