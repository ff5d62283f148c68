"""Git snapshots for ``diff``: a commit's files read in memory, or the working tree from disk.

Nothing here writes to the repository: no checkout, no index update, no ref, no worktree. A
snapshot's paths are relative to the directory that holds the spec (the fleet's repo root).
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import git

from fleetgen.errors import UsageError

WORKTREE = "worktree"
_DEFAULT_BRANCHES = ("origin/HEAD", "origin/main", "origin/master", "main", "master")


class RefError(UsageError):
    """No repository, a spec outside it, or a ref that names no commit."""


class Snapshot(Protocol):
    """The files of the fleet repo at one point in history (or now)."""

    @property
    def label(self) -> str:
        """The ref as the user named it, or ``worktree``."""
        ...

    @property
    def sha(self) -> str | None:
        """The commit, or None for the working tree."""
        ...

    def read(self, path: str) -> bytes | None:
        """The bytes of a file, or None when there is no such file (a ``reading.Reader``)."""
        ...

    def files(self, directory: str) -> dict[str, str]:
        """Every file under ``directory``: path -> Git blob id (content digest)."""
        ...

    def python_files(self) -> list[str]:
        """Top-level ``*.py`` files and the ``*.py`` files of top-level packages."""
        ...


def _inside(root: str, path: str) -> str | None:
    """``path`` joined to ``root``, normalized; None when it leaves the repository."""
    joined = posixpath.normpath(posixpath.join(root, path))
    return None if joined.startswith("..") or posixpath.isabs(joined) else joined


def blob_id(data: bytes) -> str:
    """The Git (SHA-1) blob id of ``data``, as ``git hash-object`` computes it."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class CommitSnapshot:
    """A commit's tree, read through ``git cat-file --batch`` (no checkout)."""

    label: str
    commit: git.Commit
    root: str  # the spec's directory relative to the repository root; "." for the root

    @property
    def sha(self) -> str:
        """The commit id."""
        return self.commit.hexsha

    def _object(self, path: str) -> git.Blob | git.Tree | None:
        full = _inside(self.root, path)
        if full is None:
            return None
        if full == ".":
            return self.commit.tree
        try:
            found = self.commit.tree / full
        except KeyError:
            return None
        return found if isinstance(found, git.Blob | git.Tree) else None

    def read(self, path: str) -> bytes | None:
        """A file's bytes at this commit."""
        found = self._object(path)
        return found.data_stream.read() if isinstance(found, git.Blob) else None

    def files(self, directory: str) -> dict[str, str]:
        """Files under ``directory`` with their blob ids."""
        found = self._object(directory)
        if not isinstance(found, git.Tree):
            return {}
        return {
            posixpath.relpath(item.path, self.root): item.hexsha
            for item in found.traverse()
            if isinstance(item, git.Blob)
        }

    def python_files(self) -> list[str]:
        """Python sources a spec can import, at this commit."""
        tree = self._object(".")
        if not isinstance(tree, git.Tree):
            return []
        found = [blob.name for blob in tree.blobs if blob.name.endswith(".py")]
        for sub in tree.trees:
            if any(blob.name == "__init__.py" for blob in sub.blobs):
                found.extend(path for path in self.files(sub.name) if path.endswith(".py"))
        return sorted(found)


@dataclass(frozen=True)
class WorktreeSnapshot:
    """The working tree as ``fleetgen build`` sees it, ignored files left out of listings."""

    repo: git.Repo
    root: Path  # the spec's directory on disk
    label: str = WORKTREE

    @property
    def sha(self) -> None:
        """The working tree has no commit."""
        return None

    def read(self, path: str) -> bytes | None:
        """A file's bytes on disk."""
        relative = _inside(".", path)
        target = self.root / relative if relative is not None else None
        return target.read_bytes() if target is not None and target.is_file() else None

    def files(self, directory: str) -> dict[str, str]:
        """Tracked and untracked, not ignored, files under ``directory`` with their blob ids."""
        relative = _inside(".", directory)
        if relative is None or not (self.root / relative).is_dir():
            return {}
        listed = self.repo.git.ls_files(
            "-z", "--cached", "--others", "--exclude-standard", "--", str(self.root / relative)
        )
        top = Path(self.repo.working_tree_dir or ".")
        found: dict[str, str] = {}
        for name in filter(None, listed.split("\0")):
            path = top / name
            if path.is_file():
                found[path.relative_to(self.root).as_posix()] = blob_id(path.read_bytes())
        return dict(sorted(found.items()))

    def python_files(self) -> list[str]:
        """Not needed: the working tree is imported from in place."""
        return []


@dataclass(frozen=True)
class EditedWorktree(WorktreeSnapshot):
    """The working tree with some files' bytes replaced: an edit fleetgen makes, written or not."""

    edits: Mapping[str, bytes] = field(default_factory=dict)  # path -> its bytes

    def read(self, path: str) -> bytes | None:
        """A file's edited bytes, else its bytes on disk."""
        return self.edits[path] if path in self.edits else super().read(path)


@contextmanager
def open_repo(start: Path) -> Iterator[git.Repo]:
    """The repository holding ``start``; its ``git cat-file`` helpers end with the block, and a
    Git failure inside it (a missing object in a shallow clone …) becomes a RefError."""
    try:
        repo = git.Repo(start, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise RefError(f"{start} is not inside a Git repository") from None
    with repo:
        if repo.working_tree_dir is None:
            raise RefError(f"{repo.git_dir} is a bare repository; run diff in a working tree")
        try:
            yield repo
        except git.GitError as error:
            raise RefError(f"git failed: {error}") from None


def spec_root(repo: git.Repo, spec: Path) -> str:
    """The spec's directory relative to the repository root (``.`` for the root)."""
    top = Path(repo.working_tree_dir or ".").resolve()
    try:
        return spec.resolve().parent.relative_to(top).as_posix() or "."
    except ValueError:
        raise RefError(f"{spec} is not inside the repository at {top}") from None


def commit_snapshot(
    repo: git.Repo, ref: str, root: str, label: str | None = None
) -> CommitSnapshot:
    """The snapshot of ``ref`` (any commit-ish git understands)."""
    try:
        commit = repo.commit(ref)
    except (git.BadName, git.BadObject, ValueError):
        raise RefError(
            f"{ref!r} does not name a commit (a branch, tag or commit id; fetch a "
            "remote branch first, e.g. `git fetch origin main`)"
        ) from None
    return CommitSnapshot(label or ref, commit, root)


def default_base(repo: git.Repo) -> tuple[str, str]:
    """(commit, label): the merge-base of HEAD with the default branch, else HEAD.

    Raises RefError in a repository without commits (there is nothing to compare with).
    """
    if not repo.head.is_valid():
        raise RefError(
            "the repository has no commits yet, so there is nothing to compare with: "
            "commit fleet.py first; then `fleetgen diff` shows what your edits change"
        )
    unrelated = []
    for branch in _DEFAULT_BRANCHES:
        try:
            bases = repo.merge_base("HEAD", branch)
        except git.GitCommandError:
            continue
        if bases and bases[0] is not None:
            return bases[0].hexsha, f"merge-base of HEAD and {branch}"
        unrelated.append(branch)
    if unrelated:
        return "HEAD", (
            f"HEAD (it shares no history with {unrelated[0]}, so there is no "
            "merge-base; pass --base REF to choose)"
        )
    return "HEAD", "HEAD (no default branch to take a merge-base with)"
