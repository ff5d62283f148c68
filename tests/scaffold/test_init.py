"""``fleetgen init``: a new fleet repo that builds, checks and renders right away."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from fleetgen.scaffold import init_files, install, remote
from fleetgen.tools.kustomize import Kustomize, build
from tests.helpers import Ran, run_fleetgen


def fleetgen(cwd: Path, *args: str) -> Ran:
    return run_fleetgen(cwd, *args)


def test_init_then_build_then_check(tmp_path: Path, kustomize: Kustomize) -> None:
    repo = tmp_path / "Acme Fleet"
    created = fleetgen(tmp_path, "init", repo.name)
    assert created.returncode == 0, created.stderr
    assert sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file()) == [
        ".github/workflows/fleet.yaml",
        ".gitignore",
        ".pre-commit-config.yaml",
        "README.md",
        "apps/hello/base/deployment.yaml",
        "apps/hello/base/kustomization.yaml",
        "apps/hello/base/service.yaml",
        "fleet.py",
    ]
    assert 'name="acme-fleet"' in (repo / "fleet.py").read_text()
    for name in (".github/workflows/fleet.yaml", ".pre-commit-config.yaml"):
        assert yaml.safe_load((repo / name).read_text())
    workflow = yaml.safe_load((repo / ".github/workflows/fleet.yaml").read_text())
    # The job that runs fleet.py (code) has a read-only token; the one that writes runs no code.
    assert "pull_request_target" not in workflow[True] and workflow["permissions"] == {
        "contents": "read"
    }
    # Every pull request and every commit: a path filter would miss inputs outside apps/ (bases
    # under k8s/, charts, CA files) and let stale output through.
    assert workflow[True] == {"pull_request": None}
    # The hooks run the fleetgen installed where pre-commit runs (`repo: local`): no rev of
    # fleetgen's repository to download; each runs on every commit, the others commented.
    (hooks,) = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())["repos"]
    assert hooks == {
        "repo": "local",
        "hooks": [
            {
                "id": "fleetgen-build-check",
                "name": "fleetgen build --check",
                "entry": "fleetgen build --check",
                "language": "system",
                "always_run": True,
                "pass_filenames": False,
            }
        ],
    }
    # `review` runs fleet.py with the read-only token, `publish` writes and runs nothing of the
    # pull request (it reads the review's artifact).
    jobs = workflow["jobs"]
    assert "permissions" not in jobs["review"]
    assert jobs["publish"]["permissions"] == {
        "pull-requests": "write",
        "security-events": "write",
    }
    assert not any("checkout" in step.get("uses", "") for step in jobs["publish"]["steps"])
    assert created.stdout.splitlines()[-1] == (
        "next: cd 'Acme Fleet' && fleetgen build, then commit everything"
    )
    # Nothing names a tag or a release of fleetgen (none exists).
    for name in (".github/workflows/fleet.yaml", ".pre-commit-config.yaml", "README.md"):
        text = (repo / name).read_text()
        assert "@v0" not in text and "rev:" not in text and "fleetgen/fleetgen@" not in text
    built = fleetgen(repo, "build")
    assert built.returncode == 0, built.stderr
    assert built.stdout.endswith(" (1 placement)\n")
    checked = fleetgen(repo, "build", "--check")
    assert (checked.returncode, checked.stdout) == (0, "output is up to date\n"), checked.stderr
    validated = fleetgen(repo, "validate", "--render")  # the scaffolded base passes the policy
    assert validated.returncode == 0, validated.stdout + validated.stderr
    rendered = build(repo / "output/overlays/hello/dev", kustomize)
    assert "image: nginxinc/nginx-unprivileged:1.27" in rendered
    assert "| hello | argocd |" in (repo / "output/README.md").read_text()
    assert 'engines=["argocd"],' in (repo / "fleet.py").read_text()


def test_init_with_flux_places_everything_on_flux(tmp_path: Path) -> None:
    """--engine flux: one engine, no Argo CD files, and no credentials needed (each cluster's
    own Flux pulls from the repo)."""
    repo = tmp_path / "fleet"
    created = fleetgen(tmp_path, "init", repo.name, "--engine", "flux")
    assert created.returncode == 0, created.stderr
    text = (repo / "fleet.py").read_text()
    assert 'engines=["flux"],' in text and "default_credentials" not in text
    built = fleetgen(repo, "build")
    assert built.returncode == 0, built.stderr
    assert (repo / "output/flux/clusters/dev-1/kustomizations.yaml").is_file()
    assert not (repo / "output/argocd").exists()
    assert "| hello | flux |" in (repo / "output/README.md").read_text()


def test_init_refuses_an_unknown_engine(tmp_path: Path) -> None:
    result = fleetgen(tmp_path, "init", "--engine", "both")
    assert result.returncode == 2
    assert "--engine 'both': use argocd or flux" in result.stderr
    assert list(tmp_path.iterdir()) == []


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_init_adopts_an_existing_repo_without_overwriting(tmp_path: Path) -> None:
    """An existing README is kept as is, an existing .gitignore gets only the lines it lacks, and
    the scp-style ssh remote becomes the https URL fleet.py needs."""
    git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", "origin", "git@github.com:acme/platform.git")
    (tmp_path / "README.md").write_text("# Platform\n\nours\n")
    (tmp_path / ".gitignore").write_text("node_modules/\n.venv/")  # no final newline
    result = fleetgen(tmp_path, "init")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "README.md").read_text() == "# Platform\n\nours\n"
    assert (tmp_path / ".gitignore").read_text() == (
        "node_modules/\n.venv/\n# fleetgen\n__pycache__/\n*.pyc\n"
    )
    lines = result.stdout.splitlines()
    assert "skipped  README.md (it exists)" in lines
    assert "appended .gitignore (2 line(s))" in lines
    assert "created  fleet.py" in lines and "repo: https://github.com/acme/platform.git" in lines
    assert (
        "git@github.com:acme/platform.git; the engines read the repo as "
        "https://github.com/acme/platform.git" in result.stderr
    )
    text = (tmp_path / "fleet.py").read_text()
    assert 'REPO = "https://github.com/acme/platform.git"' in text
    assert lines[-1] == "next: fleetgen build, then commit everything"  # already there
    # An existing repository has apps of its own: no demo app, and how to add its bases.
    assert not (tmp_path / "apps").exists()
    assert "    projects=[],\n    apps=[],\n" in text and "App(name" not in text
    assert (
        "adopted an existing repository: no demo app; add its kustomize bases with `fleetgen "
        "add project NAME --namespace NS`, then `fleetgen add app NAME --project NAME "
        "--namespace NS --path DIR` each"
    ) in lines
    assert fleetgen(tmp_path, "build").returncode == 0


def test_init_in_a_folder_of_a_repository_with_commits_adds_no_demo_app(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "README.md").write_text("ours\n")
    git(tmp_path, "add", "README.md")
    git(tmp_path, "commit", "-q", "-m", "first")
    result = fleetgen(tmp_path, "init", "deploy/fleet", "--repo", "https://github.com/a/b.git")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (tmp_path / "deploy/fleet").iterdir()) == [
        ".github",
        ".gitignore",
        ".pre-commit-config.yaml",
        "README.md",
        "fleet.py",
    ]
    assert fleetgen(tmp_path / "deploy/fleet", "build").returncode == 0


def test_init_of_a_repository_without_commits_is_a_new_one(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    result = fleetgen(tmp_path, "init", "--repo", "https://github.com/a/b.git")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "apps/hello/base/kustomization.yaml").is_file()
    assert "adopted" not in result.stdout


SERVER = "https://dev-1.placeholder.invalid:6443"
SERVER_NOTE = (
    f"cluster 'dev-1': server {SERVER} is a placeholder (a .invalid host never resolves), so no "
    "engine can reach the cluster by it: set it to the cluster's API server URL"
)


def test_init_twice_refuses_and_a_complete_gitignore_is_skipped(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("__pycache__/\n*.pyc\n.venv/\n")
    first = fleetgen(tmp_path, "init", "--repo", "https://git.example.com/a.git")
    assert first.returncode == 0, first.stderr
    assert "skipped  .gitignore (it has fleetgen's lines)" in first.stdout.splitlines()
    # --repo given: no remote lookup, no warning of it; the cluster's server is init's placeholder
    assert first.stderr == f"warning: {SERVER_NOTE}\n"
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    second = fleetgen(tmp_path, "init")
    assert second.returncode == 2
    assert "fleet.py already exists: this is a fleet repo already" in second.stderr
    assert "Traceback" not in second.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_init_without_a_remote_warns_and_marks_the_placeholder_in_fleet_py(tmp_path: Path) -> None:
    result = fleetgen(tmp_path, "init", "--name", "acme")
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        "warning: repo is a placeholder (the folder has no Git remote "
        "'origin'): set it to the https:// or ssh:// URL the engines read "
        f"this repository from\nwarning: {SERVER_NOTE}\n"
    )
    text = (tmp_path / "fleet.py").read_text()
    assert (
        "# WARNING: repo is a placeholder (the folder has no Git remote 'origin'): set it "
        "to the https:// or\n# ssh:// URL the engines read this repository from.\n"
        'REPO = "https://placeholder.invalid/acme.git"\n'
    ) in text
    assert (
        "        # WARNING: cluster 'dev-1': server https://dev-1.placeholder.invalid:6443 is a\n"
        "        # placeholder (a .invalid host never resolves), so no engine can reach\n"
        "        # the cluster by it: set it to the cluster's API server URL.\n"
        "        Cluster(\n"
        f'            name="dev-1", env="dev", server="{SERVER}"\n'
        "        ),\n"
    ) in text
    assert max(len(line) for line in text.splitlines()) <= 100


PLACEHOLDER_WARNING = (
    "warning: repo https://placeholder.invalid/acme.git is a placeholder (a .invalid host never "
    "resolves), so neither Argo CD nor Flux can fetch this repository: set it to the https:// or "
    "ssh:// URL they read it from"
)


def test_build_and_validate_flag_the_placeholders_until_they_are_set(tmp_path: Path) -> None:
    """The repo and the cluster's server init writes without knowing them (issue #39)."""
    assert fleetgen(tmp_path, "init", "--name", "acme", "--engine", "flux").returncode == 0
    spec = tmp_path / "fleet.py"
    lines = spec.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "= Fleet(" in text)
    cluster = next(n for n, text in enumerate(lines, 1) if text.strip() == "Cluster(")
    for _ in range(2):  # the no-op build (nothing compiled) warns as the first did
        built = fleetgen(tmp_path, "build")
        assert (built.returncode, built.stderr) == (
            0,
            f"fleet.py:{line}: {PLACEHOLDER_WARNING}\nfleet.py:{cluster}: warning: {SERVER_NOTE}\n",
        )
    validated = fleetgen(tmp_path, "validate", "--format", "json")
    assert validated.returncode == 0, validated.stdout  # a warning: not a failure
    found = json.loads(validated.stdout)["findings"]
    assert [(f["rule"], f["severity"], f["location"]) for f in found] == [
        ("placeholder-repo", "warning", {"path": "fleet.py", "line": line}),
        ("spec-warning", "warning", {"path": "fleet.py", "line": cluster}),
    ]
    spec.write_text(
        spec.read_text()
        .replace("https://placeholder.invalid/acme.git", "https://github.com/a/b.git")
        .replace(SERVER, "https://dev-1.k8s.acme.example:6443")
    )
    built = fleetgen(tmp_path, "build")
    assert (built.returncode, built.stderr) == (0, "")
    assert json.loads(fleetgen(tmp_path, "validate", "--format", "json").stdout)["findings"] == []


def test_add_cluster_never_prints_a_flux_bootstrap_of_the_placeholder(tmp_path: Path) -> None:
    assert fleetgen(tmp_path, "init", "--name", "acme", "--engine", "flux").returncode == 0
    added = fleetgen(
        tmp_path, "add", "cluster", "dev-2", "--env", "dev", "--server", "https://d2.example.com"
    )
    assert added.returncode == 0, added.stderr
    lines = added.stdout.splitlines()
    assert not any("flux bootstrap" in line and "placeholder.invalid" in line for line in lines)
    assert (
        "1. Flux: set fleet.py's repo (still the placeholder https://placeholder.invalid/acme.git) "
        "to the URL Flux reads this repository from, then with kubectl pointing at dev-2, run"
    ) in lines
    assert (
        "    flux bootstrap git --url=<that URL> --branch=main --path=output/flux/clusters/dev-2"
    ) in lines


def test_init_drops_a_token_from_the_remote_url(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", "origin", "https://ci:ghp_abcdefSECRET@github.com/acme/x.git")
    result = fleetgen(tmp_path, "init")
    assert result.returncode == 0, result.stderr
    assert "ghp_abcdefSECRET" not in result.stdout + result.stderr
    assert "ghp_abcdefSECRET" not in (tmp_path / "fleet.py").read_text()
    assert 'REPO = "https://github.com/acme/x.git"' in (tmp_path / "fleet.py").read_text()
    assert "carries credentials in its URL" in result.stderr


def test_init_explains_a_remote_the_engines_cannot_read(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", "origin", "/srv/git/fleet.git")
    result = fleetgen(tmp_path, "init", "--name", "acme")
    assert result.returncode == 0, result.stderr
    assert (
        "the remote 'origin' (/srv/git/fleet.git) is not an https:// or ssh Git URL the "
        "engines can read"
    ) in result.stderr
    assert "# WARNING: repo is a placeholder" in (tmp_path / "fleet.py").read_text()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git@github.com:acme/fleet.git", "https://github.com/acme/fleet.git"),
        (
            "ssh://git@gitlab.example.com:2222/group/sub/fleet.git",
            "https://gitlab.example.com/group/sub/fleet.git",
        ),
        ("https://github.com/acme/fleet", "https://github.com/acme/fleet"),
        ("https://user:pw@git.example.com/a/b.git", "https://git.example.com/a/b.git"),
        ("http://git.example.com/a.git", None),
        ("/srv/git/fleet.git", None),
        ("file:///srv/git/fleet.git", None),
        ("git@host:/absolute/path.git", None),
    ],
)
def test_remote_urls_become_https_or_are_explained(url: str, expected: str | None) -> None:
    found = remote.https_url(url)
    assert found.url == expected
    assert found.note is None if expected == url else found.note
    assert "pw@" not in (found.note or "")


def test_init_refuses_an_invalid_name(tmp_path: Path) -> None:
    result = fleetgen(tmp_path, "init", "--name", "Not_A_Label")
    assert result.returncode == 2
    assert "Fleet.name" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_init_of_a_new_folder_inside_a_repo_reads_that_repos_remote(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", "origin", "https://github.com/acme/mono.git")
    result = fleetgen(tmp_path, "init", "deploy/fleet")
    assert result.returncode == 0, result.stderr
    assert (
        'REPO = "https://github.com/acme/mono.git"'
        in (tmp_path / "deploy/fleet/fleet.py").read_text()
    )
    assert result.stderr == f"warning: {SERVER_NOTE}\n"


@pytest.mark.parametrize(
    ("direct_url", "requirement", "note"),
    [
        (None, "fleetgen==0.3.1", None),
        (
            '{"url": "https://ci:ghp_SECRET@git.acme.example/tools/fleetgen.git", '
            '"vcs_info": {"vcs": "git", "commit_id": "' + "a" * 40 + '"}}',
            "fleetgen @ git+https://git.acme.example/tools/fleetgen.git@" + "a" * 40,
            None,
        ),
        (
            '{"url": "ssh://git@github.com/acme/fleetgen.git", '
            '"vcs_info": {"vcs": "git", "commit_id": "' + "b" * 40 + '"}}',
            "fleetgen @ git+https://github.com/acme/fleetgen.git@" + "b" * 40,
            None,
        ),
        (
            '{"url": "file:///src/fleetgen", "dir_info": {"editable": true}}',
            None,
            "fleetgen 0.3.1 was installed from the local folder /src/fleetgen: set how CI "
            "installs fleetgen in .github/workflows/fleet.yaml (its install step): "
            '"fleetgen==X.Y.Z" from a package index, or "fleetgen @ git+URL@COMMIT"',
        ),
        (
            '{"url": "file:///srv/git/fleetgen", "vcs_info": {"vcs": "git", "commit_id": "c"}}',
            None,
            "fleetgen 0.3.1 was installed from a Git repository CI cannot reach",
        ),
        (
            '{"url": "https://files.example/fleetgen-0.3.1.tar.gz", "archive_info": {}}',
            None,
            "fleetgen 0.3.1 was installed from an archive or a repository that is not Git",
        ),
        ("not json", None, "fleetgen's install record is unreadable"),
    ],
    ids=["index", "git with a token", "git over ssh", "local", "local git", "archive", "bad"],
)
def test_ci_installs_fleetgen_as_it_was_installed(
    direct_url: str | None, requirement: str | None, note: str | None
) -> None:
    """PEP 610 ``direct_url.json``: none recorded is a package index (the version pinned); a Git
    URL and commit, that URL (as https, without credentials) at that commit; a local folder or
    anything else, no requirement but a note saying what to set."""
    found = install.from_record(direct_url, "0.3.1")
    assert found.requirement == requirement
    assert (found.note or "").startswith(note or "") and (found.note is None) == (note is None)
    assert "ghp_SECRET" not in repr(found)


def _workflow(how: install.Install) -> str:
    return init_files("acme", "https://github.com/acme/fleet.git", how=how)[install.WORKFLOW]


@pytest.mark.parametrize(
    "requirement",
    ["fleetgen==0.3.1", "fleetgen @ git+https://github.com/acme/fleetgen.git@" + "a" * 40],
)
def test_the_workflow_installs_the_requirement(requirement: str) -> None:
    how = install.Install("0.3.1", requirement)
    steps = yaml.safe_load(_workflow(how))["jobs"]["review"]["steps"]
    (step,) = [step for step in steps if step.get("name") == "Install fleetgen"]
    assert step["run"] == f'python -m pip install --quiet "{requirement}"'
    readme = init_files("acme", "https://github.com/acme/fleet.git", how=how)["README.md"]
    assert f'pip install "{requirement}"' in readme


def test_the_workflow_of_a_local_install_is_a_placeholder_that_fails() -> None:
    """Installed from a local folder: the install line is commented, and the step fails saying
    what to set until it is (init prints the note)."""
    how = install.from_record('{"url": "file:///src/fleetgen", "dir_info": {}}', "0.3.1")
    text = _workflow(how)
    steps = yaml.safe_load(text)["jobs"]["review"]["steps"]
    (step,) = [step for step in steps if step.get("name") == "Install fleetgen"]
    assert step["run"].splitlines() == [
        '# python -m pip install --quiet "fleetgen @ git+URL@COMMIT"',
        'echo "::error::set how .github/workflows/fleet.yaml installs fleetgen"; exit 1',
    ]
    assert "# TODO: fleetgen 0.3.1 was installed from a local folder" in text
    assert "/src/fleetgen" not in text


def test_the_workflow_posts_the_comment_as_the_action_does() -> None:
    """The scaffolded workflow runs the report and posts the comment with the scripts of
    fleetgen's action (action.yml), which it no longer uses: it would need a tag."""
    root = Path(__file__).resolve().parents[2]
    action = yaml.safe_load((root / "action.yml").read_text())["runs"]["steps"]
    jobs = yaml.safe_load(_workflow(install.Install("0.3.1", "fleetgen==0.3.1")))["jobs"]
    ours = [step for job in jobs.values() for step in job["steps"]]
    for name in ("build --check, validate, diff", "Comment on the pull request"):
        (theirs,) = [step for step in action if step.get("name", "").startswith(name)]
        (mine,) = [step for step in ours if step.get("name", "").startswith(name)]
        command = theirs["run"].replace(" $RENDER", "")
        assert (mine["run"], mine["name"]) == (command, theirs["name"])


@pytest.mark.parametrize(
    ("url", "found"),
    [
        ("https://bob:hunter2@github.com/a/b.git", "<7 characters> looks like a password in a URL"),
        (
            "https://x-access-token:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/a/b.git",
            "<40 characters> looks like a GitHub token",
        ),
    ],
)
def test_init_refuses_a_repo_with_a_credential_at_the_option(
    tmp_path: Path, url: str, found: str
) -> None:
    """The message names --repo, not a line of a fleet.py that was never written, and never
    the credential (issue #39)."""
    result = fleetgen(tmp_path, "init", "fleet", "--repo", url)
    assert result.returncode == 2
    assert result.stderr.startswith(f"--repo: {found}")
    assert "give the repository's URL without credentials" in result.stderr
    assert "fleet.py" not in result.stderr.split(": give")[0]
    assert "hunter2" not in result.stderr and "ghp_" not in result.stderr
    assert list(tmp_path.iterdir()) == []
