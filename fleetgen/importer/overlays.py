"""Repositories of plain Kustomize overlays, without Flux or Argo CD objects (the engines'
objects that deploy them are kept elsewhere): each app folder's overlay folders, one per
environment or cluster (`find`), and which is which (`roles`): a folder named after an
environment (``dev``, ``staging``, ``prod`` …) is that environment's; the others the user names,
with ``--env NAME=FOLDER`` and ``--cluster [ENV/]NAME=FOLDER`` or on a terminal (`FoldersOpen`).
`fleetgen.importer.overlaydraft` makes the fleet of them."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from fleetgen.errors import UsageError
from fleetgen.importer.draft import env_name, is_env_word
from fleetgen.importer.repo import Repo
from fleetgen.model.fields import to_dns_label

# Folder names that say where manifests are, not whose: an app folder so named takes the name of
# the folder above it (the repository's at the root).
_GENERIC = frozenset({"deploy", "deployment", "deployments", "k8s", "kubernetes", "kustomize"})
_GENERIC |= {"manifests", "apps", "."}
_LISTED = 5  # app folders a message names before "and N more"
_OVERLAYS = frozenset({"overlays", "envs", "environments"})  # folders of an app's overlay folders


@dataclass(frozen=True, slots=True)
class OverlaySet:
    """One app's folders: its name, its folder (repo-relative, "." the root) and its overlay
    folders, (folder name, repo path) in name order."""

    app: str
    folder: str
    overlays: tuple[tuple[str, str], ...]

    def summary(self) -> str:
        """``apps/web: dev, prod``."""
        return f"{self.folder}: {', '.join(name for name, _ in self.overlays)}"


@dataclass(frozen=True, slots=True)
class Role:
    """What an overlay folder is: an environment's (``cluster`` None: every cluster of ``env``),
    or one cluster's of ``env``."""

    env: str
    cluster: str | None = None


class FoldersOpen(UsageError):
    """Overlay folders whose role neither their name nor the options say; ``folders``: each
    one's name and where it is."""

    def __init__(self, message: str, folders: Sequence[tuple[str, tuple[str, ...]]]) -> None:
        super().__init__(message)
        self.folders = folders


def find(repo: Repo) -> list[OverlaySet]:
    """The app folders of the repository with their overlay folders: ``APP/overlays/NAME/``
    (or ``APP/envs/NAME/``, ``APP/environments/NAME/``), or ``APP/NAME/`` beside ``APP/base/``,
    each holding a kustomization (not a Component)."""
    folders = {
        posixpath.dirname(file) or "."
        for file, doc in repo.kustomizations.items()
        if doc.obj.get("kind") != "Component"
    }
    by_app: dict[str, dict[str, str]] = {}
    for folder in sorted(folders):
        parent, name = posixpath.split(folder)
        above, last = posixpath.split(parent)
        if last in _OVERLAYS and parent:
            by_app.setdefault(above or ".", {})[name] = folder
        elif name != "base" and name not in _OVERLAYS and posixpath.join(parent, "base") in folders:
            by_app.setdefault(parent or ".", {})[name] = folder
    names = _app_names(by_app, to_dns_label(repo.root.name, "app"))
    return [
        OverlaySet(names[folder], folder, tuple(sorted(overlays.items())))
        for folder, overlays in sorted(by_app.items())
    ]


def _app_names(folders: Iterable[str], fallback: str) -> dict[str, str]:
    """App folder -> its app's name: the folder's, or the nearest one above it that is not
    `_GENERIC`, else ``fallback``; the folder's whole path where two would share a name."""
    named = {}
    for folder in folders:
        parts = [p for p in folder.split("/") if p not in _GENERIC]
        named[folder] = to_dns_label(parts[-1], fallback) if parts else fallback
    taken = list(named.values())
    return {
        folder: name if taken.count(name) == 1 else to_dns_label(folder, fallback)
        for folder, name in named.items()
    }


def described(sets: Sequence[OverlaySet]) -> str:
    """The app folders and their overlay folders, for a message."""
    shown = "; ".join(found.summary() for found in sets[:_LISTED])
    more = len(sets) - _LISTED
    return shown + (f"; and {more} more" if more > 0 else "")


def roles(
    sets: Sequence[OverlaySet], envs: Sequence[str], clusters: Sequence[str], command: str
) -> dict[str, Role]:
    """Overlay folder name -> its role: as ``--env NAME=FOLDER`` and ``--cluster
    [ENV/]NAME=FOLDER`` say (``envs``, ``clusters``), else an environment's when it is named
    after one. Raises `FoldersOpen` for the rest (``command``: the import that was run, which
    the message completes), `UsageError` for an option that names no folder."""
    where: dict[str, list[str]] = {}
    for found in sets:
        for name, path in found.overlays:
            where.setdefault(name, []).append(path)
    given = _given(envs, clusters, sorted(where))
    found_roles = {name: given.get(name) or Role(name) for name in where}
    open_ = [(name, tuple(where[name])) for name in sorted(where) if _open(name, given)]
    if open_:
        raise FoldersOpen(_open_message(open_, command), open_)
    return found_roles


def _open(name: str, given: Mapping[str, Role]) -> bool:
    """Whether nothing says what the folder ``name`` is."""
    return name not in given and not (is_env_word(name) and to_dns_label(name, "") == name)


def _open_message(open_: Sequence[tuple[str, tuple[str, ...]]], command: str) -> str:
    """Which folders are open, and a command that says what they are: a folder whose name holds
    an environment word (``prod-eu``) a cluster of that environment, any other an environment."""
    listed = ", ".join(
        f"{name!r} ({', '.join(paths[:2])}{', …' if paths[2:] else ''})" for name, paths in open_
    )
    options = []
    for name, _ in open_:
        label = to_dns_label(name, "overlay")
        env = env_name(label)
        options.append(
            f"--env {label}={name}" if env == label else f"--cluster {env}/{label}={name}"
        )
    return (
        f"overlay folders not named after an environment: {listed}; say what each is with "
        f"--env NAME=FOLDER or --cluster [ENV/]NAME=FOLDER (for instance: {command} "
        f"{' '.join(options)}), or run import on a terminal, which asks"
    )


def _given(envs: Sequence[str], clusters: Sequence[str], folders: Sequence[str]) -> dict[str, Role]:
    """Folder name -> the role the options give it."""
    given: dict[str, Role] = {}
    for option, values in (("--env", envs), ("--cluster", clusters)):
        for value in values:
            name, folder = _assignment(option, value, folders)
            if folder in given:
                raise UsageError(f"{option} {value!r}: folder {folder!r} is given twice")
            if option == "--env":
                given[folder] = Role(_label(option, value, name))
                continue
            env, _, cluster = name.rpartition("/")
            cluster = _label(option, value, cluster)
            given[folder] = Role(_label(option, value, env or env_name(cluster)), cluster)
    return given


def _assignment(option: str, value: str, folders: Sequence[str]) -> tuple[str, str]:
    """(NAME, FOLDER) of ``NAME=FOLDER``, FOLDER one of the overlay ``folders``."""
    name, equals, folder = value.partition("=")
    if not equals or not name or not folder:
        form = "[ENV/]NAME=FOLDER" if option == "--cluster" else "NAME=FOLDER"
        raise UsageError(f"{option} {value!r}: give {form}")
    if folder not in folders:
        raise UsageError(
            f"{option} {value!r}: no overlay folder is named {folder!r} "
            f"(overlay folders: {', '.join(folders) or 'none'})"
        )
    return name, folder


def _label(option: str, value: str, name: str) -> str:
    """``name`` when it is a DNS-1123 label (an environment's or a cluster's name)."""
    if to_dns_label(name, "") != name:
        raise UsageError(
            f"{option} {value!r}: {name!r} is not a valid name (lowercase letters, digits and "
            "'-', at most 63 characters)"
        )
    return name
