"""``init``: a new fleet repository, or an existing one adopted; never overwrites a file, and
validates the spec with the files as they will be before anything is written."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fleetgen.errors import UsageError
from fleetgen.inputs.load import load_source
from fleetgen.inputs.scan import message
from fleetgen.model.fields import server_placeholder_note, to_dns_label
from fleetgen.pipeline import api
from fleetgen.rules.secrets import find
from fleetgen.scaffold import install, remote
from fleetgen.scaffold.add import overlaid, write_new
from fleetgen.scaffold.requests import AppRequest, ClusterRequest, check_engine
from fleetgen.scaffold.snippets import app_call, base_dir, base_files, cluster_call
from fleetgen.util.linelength import DEFAULT_WIDTH, line_length
from fleetgen.util.templating import Call, Code, render
from fleetgen.version import SOURCE_REPO
from fleetgen.write.journal import atomic_write

# The one cluster init writes, in environment dev: its name and placeholder server.
_CLUSTER = ("dev-1", remote.PLACEHOLDER_SERVER.format(cluster="dev-1"))
_SYNC = ("automated", "prune", "self_heal")  # environment dev's sync policy


@dataclass(frozen=True, slots=True)
class Initialized:
    """What ``init`` did, file by file, and what the user must know.

    Attributes:
        files: (repo-relative path, "created" | "appended: N line(s)" | "skipped: WHY").
        repo: The fleet's repo URL as written into fleet.py.
        warnings: Things to fix or know (a placeholder repo, a converted remote).
        adopted: An existing repository was adopted: fleet.py has no demo app.
        install: How the workflow and README install fleetgen (`install.Install.note`: what
            to set where that is unknown).
    """

    files: tuple[tuple[str, str], ...]
    repo: str
    warnings: tuple[str, ...]
    adopted: bool = False
    install: install.Install | None = None


def init(
    directory: Path, name: str | None = None, repo: str | None = None, engine: str = "argocd"
) -> Initialized:
    """Create a fleet repo in ``directory`` (a new one, or an existing repository being adopted):
    fleet.py with one engine, environment and cluster, and in a new repository a demo app and
    its base (an adopted one has apps of its own), README, .gitignore, pre-commit config and a CI
    workflow. Never overwrites a file: an existing .gitignore gets the lines it lacks, any other
    existing file is skipped; an existing fleet.py is refused. Without ``repo``, the Git remote
    ``origin`` (as https) or a placeholder with a warning. The spec is validated, with the files
    as they will be, before anything is written."""
    if (directory / "fleet.py").exists():
        raise UsageError(
            f"{directory / 'fleet.py'} already exists: this is a fleet repo "
            "already; add to it with `fleetgen add`"
        )
    name = name or to_dns_label(directory.resolve().name, "fleet")
    warnings: list[str] = []
    placeholder = None
    if repo is not None:
        _no_credentials(repo)
    else:
        found = remote.origin(directory)
        if found.url is None:
            placeholder = (
                f"repo is a placeholder ({found.note}): set it to the https:// or "
                "ssh:// URL the engines read this repository from"
            )
        warnings.append(placeholder or found.note or "")
        repo = found.url or remote.PLACEHOLDER_REPO.format(name=name)
    adopted = adopting(directory)
    how = install.installed()
    files = init_files(
        name,
        repo,
        check_engine(engine),
        placeholder,
        demo=not adopted,
        how=how,
        width=line_length(directory),
    )
    warnings.append(server_placeholder_note(*_CLUSTER) or "")
    planned = {path: _merged(directory / path, path, text) for path, text in files.items()}
    spec = directory.resolve() / "fleet.py"
    written = {path: text for path, (text, _) in planned.items() if text is not None}
    loaded = load_source(
        files["fleet.py"], str(spec), *overlaid(directory.resolve(), written), None
    )
    api.compile_loaded(spec, loaded)
    for path, (text, action) in planned.items():
        if text is not None:
            target = directory / path
            if action == "created":
                write_new(target, text)
            else:
                atomic_write(target, text.encode(), target.stat().st_mode)
    return Initialized(
        tuple((path, action) for path, (_, action) in planned.items()),
        repo,
        tuple(warning for warning in warnings if warning),
        adopted,
        how,
    )


def _no_credentials(repo: str) -> None:
    """Refuse a ``--repo`` URL holding a credential (a token, a password), naming the option and
    never the credential: the engines read the repository's credentials from a secret store."""
    found = find("repo", repo)
    if found is not None:
        raise UsageError(
            f"--repo: {message(found)}: give the repository's URL without credentials (the "
            "engines read those from a secret store, never from fleet.py)"
        )


def adopting(directory: Path) -> bool:
    """Whether ``init`` adopts an existing repository (which has its own apps) rather than
    starting a new one: ``directory`` holds files already, or lies in a Git repository with a
    commit."""
    if directory.is_dir() and any(entry.name != ".git" for entry in directory.iterdir()):
        return True
    return remote.has_commits(directory)


def _merged(target: Path, path: str, text: str) -> tuple[str | None, str]:
    """(the file's new text, or None to leave it; what init does to it)."""
    if not target.exists():
        return text, "created"
    if path != ".gitignore" or not target.is_file():
        return None, "skipped: it exists"
    current = target.read_text(encoding="utf-8")
    have = {line.strip() for line in current.splitlines()}
    missing = [line for line in text.splitlines() if line.strip() and line.strip() not in have]
    if not missing:
        return None, "skipped: it has fleetgen's lines"
    separator = "" if not current or current.endswith("\n") else "\n"
    return (
        current + separator + "# fleetgen\n" + "".join(f"{line}\n" for line in missing),
        f"appended: {len(missing)} line(s)",
    )


def init_files(
    name: str,
    repo: str,
    engine: str = "argocd",
    placeholder: str | None = None,
    *,
    demo: bool = True,
    how: install.Install | None = None,
    width: int = DEFAULT_WIDTH,
) -> dict[str, str]:
    """Every file ``init`` creates, by repo-relative path; ``demo``: with a demo app (a new
    repository) and its base; ``how``: how CI installs fleetgen (default: as this one was);
    ``width``: the line length fleet.py is laid out to (ruff's)."""
    env, app, project = "dev", "hello", "apps"
    calls = {
        "environment": Call(
            "Environment",
            {"name": env, "sync": Call("SyncPolicy", dict.fromkeys(_SYNC, True))},
        ),
        "credentials": Call(
            "ExternalSecretRef", {"store": "vault-backend", "key": "clusters/{cluster}"}
        ),
        "cluster": cluster_call(ClusterRequest(_CLUSTER[0], env, _CLUSTER[1])),
        "project": Call(
            "Project",
            {
                "name": project,
                "description": "Applications",
                "namespaces": [app],
                "source_repos": [Code("REPO")],
            },
        ),
        "app": (
            app_call(AppRequest(app, project, app, image="nginxinc/nginx-unprivileged:1.27"))
            if demo
            else None
        ),
    }
    how = how or install.installed()
    context = {
        "name": name,
        "repo": repo,
        "output_dir": "output",
        "version": how.version,
        "requirement": how.requirement,
        "source": SOURCE_REPO.removesuffix(".git"),
    }
    files = {
        "fleet.py": render(
            "init/fleet.py.j2",
            engine=engine,
            width=width,
            **calls,
            placeholder=placeholder,
            server_placeholder=server_placeholder_note(*_CLUSTER),
            **context,
        ),
        "README.md": render("init/README.md.j2", **context),
        ".gitignore": render("init/gitignore.j2", **context),
        ".pre-commit-config.yaml": render("init/pre-commit-config.yaml.j2", **context),
        install.WORKFLOW: render("init/workflow.yaml.j2", **context),
    }
    if demo:
        files.update((f"{base_dir(app)}/{file}", text) for file, text in base_files(app).items())
    return files
