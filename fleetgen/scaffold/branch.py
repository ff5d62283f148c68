"""``promote --branch``: an edit of fleet.py and the output it builds committed on a new branch
(GitPython), ready to push and open as a pull request. `ready` refuses, before anything is
written, what would put more than the edit into the commit; `commit` makes it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import git

from fleetgen.errors import UsageError


@contextmanager
def _repository(start: Path) -> Iterator[git.Repo]:
    try:
        repo = git.Repo(start, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise UsageError(f"--branch: {start} is not inside a Git repository") from None
    with repo:
        try:
            yield repo
        except git.GitCommandError as error:
            said = str(error.stderr).strip().removeprefix("stderr:").strip().strip("'")
            raise UsageError(f"--branch: git failed: {said}") from None


def ready(start: Path, branch: str, paths: Sequence[Path]) -> None:
    """Refuse ``branch`` unless it can hold the commit: a new, valid branch name in a
    repository with a commit to start from, and ``paths`` (fleet.py, the output folder) without
    uncommitted changes, which the commit would take along."""
    with _repository(start) as repo:
        try:
            repo.git.check_ref_format("--branch", branch)
        except git.GitCommandError:
            raise UsageError(f"--branch {branch!r}: not a valid branch name") from None
        if branch in repo.heads:
            raise UsageError(f"--branch {branch!r}: the branch exists; pick another name")
        if not repo.head.is_valid():
            raise UsageError("--branch: the repository has no commit to branch from")
        top = Path(repo.working_tree_dir or ".").resolve()
        outside = [path for path in paths if not path.resolve().is_relative_to(top)]
        if outside:
            raise UsageError(f"--branch: {outside[0]} is outside the repository at {top}")
        changed = repo.git.status("--porcelain", "--", *map(str, paths))
        if changed:
            raise UsageError(
                "--branch: uncommitted changes the commit would take along; commit or stash "
                "them first:\n" + changed
            )


def commit(start: Path, branch: str, paths: Sequence[Path], message: str) -> str:
    """Switch to the new ``branch`` at HEAD (the working tree kept), commit ``paths`` there
    with ``message``; the commit's id."""
    with _repository(start) as repo:
        repo.git.checkout("-b", branch)
        repo.git.add("--all", "--", *map(str, paths))
        return repo.index.commit(message).hexsha
