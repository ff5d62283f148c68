"""What an artifact of a Flux ArtifactGenerator holds, as source-watcher builds it
(``internal/builder``: ``applyCopyOperation`` and what it calls), and which folder of the
repository a path in it is.

Each ``copy`` operation of an artifact, in order, copies files of a source (``@alias/...``)
into the artifact (``@artifact/...``), a later one overwriting an earlier one's files:

- a path without glob characters: a folder is copied as a subfolder of the destination
  (``@repo/apps/`` -> ``apps/``), a file into a destination ending in ``/``, else to that name
  (unless a folder of that name is there already);
- a glob (Go's ``fs.Glob``: ``*``, and ``**`` alike, match within one level) matches files and
  folders; each is copied at its whole path below the destination, but that ``dir/**`` drops
  ``dir/`` (copies its contents);
- ``exclude`` patterns (doublestar, ``**`` across levels) are matched against each path from
  the source's root and from the literal part of ``from``; one without a ``/`` also against a
  file's name; an excluded folder is skipped whole;
- ``strategy: Merge`` merges a matched YAML file into the one already there (a file no folder
  of the repository holds), ``Extract`` unpacks tarballs (ditto).

An artifact path maps back to a repository folder when the artifact is the repository at one
offset (every file the repository's file of the same relative path below one folder), so that
relative paths in kustomizations resolve alike, and the folder's YAML files are all in it."""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

ROOT = "."
_GLOB = frozenset("*?[]")
_TARBALLS = (".tar.gz", ".tgz")


class Unmapped(Exception):
    """Why an artifact cannot be built, or a path in it is no folder of the repository."""


@dataclass(frozen=True, slots=True)
class Copy:
    """One ``copy`` operation of an artifact."""

    source: str  # the alias
    pattern: str  # below the source's root
    to: str  # below the artifact's root
    to_folder: bool  # ``to`` ends with "/"
    exclude: tuple[str, ...] = ()
    strategy: str = "Overwrite"

    @classmethod
    def of(cls, raw: Mapping[str, object]) -> Copy:
        """A ``copy`` entry as source-watcher parses it (``parseCopySource``,
        ``parseCopyDestinationRelative``)."""
        source, to = str(raw.get("from", "")), str(raw.get("to", ""))
        alias, slash, pattern = source.removeprefix("@").partition("/")
        if not source.startswith("@") or not slash:
            raise Unmapped(f"its copy from {source!r} is not '@alias/pattern'")
        if not to.startswith("@artifact/"):
            raise Unmapped(f"its copy to {to!r} is not '@artifact/path'")
        exclude = raw.get("exclude")
        return cls(
            alias,
            pattern,
            to.removeprefix("@artifact/"),
            to.endswith("/"),
            tuple(str(p) for p in exclude) if isinstance(exclude, list) else (),
            str(raw.get("strategy") or "Overwrite"),
        )


@dataclass(slots=True)
class Artifact:
    """An artifact's files: each copied from a file of the repository (``files``: artifact path
    -> repository path), or made of what no repository file holds (``made``: an artifact path,
    file or folder -> what it is)."""

    files: dict[str, str] = field(default_factory=dict)
    made: dict[str, str] = field(default_factory=dict)

    def folders(self) -> set[str]:
        """The artifact's folders: the parents of its files."""
        return {parent for path in [*self.files, *self.made] for parent in _parents(path)}

    def put(self, path: str, origin: str | None, what: str = "") -> None:
        """``path`` written: a copy of ``origin``, else what ``what`` says."""
        self.made.pop(path, None)
        self.files.pop(path, None)
        if origin is None:
            self.made[path] = what
        else:
            self.files[path] = origin


Sources = Mapping[str, "frozenset[str] | str"]  # alias -> its files, or what it is (unread)


def build(copies: Sequence[Copy], sources: Sources) -> Artifact:
    """The artifact ``copies`` make of ``sources`` (``applyCopyOperations``); raises `Unmapped`
    where source-watcher fails to build it."""
    artifact = Artifact()
    for op in copies:
        if op.source not in sources:
            raise Unmapped(f"its copy from '@{op.source}' names no source alias")
        for pattern in op.exclude:
            if _regex(pattern, True) is None:
                raise Unmapped(f"its exclude pattern {pattern!r} is not a glob")
        found = sources[op.source]
        if isinstance(found, str):
            _write(op, artifact, _clean(op.to), None, f"a copy of {found}")
        else:
            _copy(op, found, artifact)
    return artifact


def folder_of(artifact: Artifact, path: str, repo_files: Iterable[str]) -> str:
    """The repository folder ``path`` (in ``artifact``) is a copy of; raises `Unmapped` when
    it is none: the artifact holds what no repository file does, or copies files to other
    relative places than the repository has them, or lacks a YAML file of the folder."""
    if artifact.made:
        made, what = sorted(artifact.made.items())[0]
        raise Unmapped(f"{made!r} is {what}, in no folder of the repository")
    bases: dict[str, tuple[str, str]] = {}
    for inside, origin in sorted(artifact.files.items()):
        base = _base(inside, origin)
        if base is None:
            raise Unmapped(f"{inside!r} is the repository's {origin!r} moved")
        bases.setdefault(base, (inside, origin))
    if len(bases) > 1:
        (one, of_one), (other, of_other) = list(bases.values())[:2]
        raise Unmapped(
            f"{one!r} is the repository's {of_one!r} and {other!r} its {of_other!r}: the "
            "copies change the layout, so relative paths would not resolve as in the repository"
        )
    if path != ROOT and path not in artifact.folders():
        raise Unmapped(f"it has no folder {path!r}")
    folder = _clean(posixpath.join(next(iter(bases)), path)) if bases else path
    copied = set(artifact.files.values())
    left = [f for f in _below(repo_files, folder) if f.endswith((".yaml", ".yml"))]
    left = [f for f in left if f not in copied]
    if left:
        raise Unmapped(f"it leaves out {left[0]!r} of the folder")
    return folder


def _copy(op: Copy, files: frozenset[str], artifact: Artifact) -> None:
    """One operation of the repository's files (``applyCopyOperation``)."""
    if not _GLOB.intersection(op.pattern):
        _single(op, files, artifact)
        return
    if op.strategy == "Extract":
        _extract(op, files, artifact)
        return
    pattern = _regex(op.pattern, False)
    every = sorted(files | {d for f in files for d in _parents(f)} - {ROOT})
    matches = [p for p in every if pattern is not None and pattern.fullmatch(p)]
    if not matches:
        raise Unmapped(f"no file matches {op.pattern!r}")
    base = _selection_root(op.pattern)
    kept = [m for m in matches if not _excluded(m, base, op.exclude)]
    if not kept:
        raise Unmapped(f"every file matching {op.pattern!r} is excluded")
    for match in kept:
        _put(op, files, match, _glob_destination(op.pattern, match, op.to), base, artifact)


def _single(op: Copy, files: frozenset[str], artifact: Artifact) -> None:
    """A path without glob characters, cp-like (``applySingleSourceCopy``)."""
    path = _clean(op.pattern)
    if path == ROOT or any(f.startswith(path + "/") for f in files):
        if op.strategy == "Extract":
            raise Unmapped(f"it extracts the folder {path!r}")
        _put(
            op, files, path, _clean(posixpath.join(op.to, posixpath.basename(path))), path, artifact
        )
        return
    if path not in files:
        raise Unmapped(f"{path!r} does not exist")
    if _excluded(path, ROOT, op.exclude):
        return
    if op.strategy == "Extract":
        if not path.lower().endswith(_TARBALLS):
            raise Unmapped(f"it extracts {path!r}, which is no tarball")
        _write(op, artifact, _clean(op.to), None, f"what {path!r} extracts (strategy Extract)")
        return
    into = op.to_folder or _clean(op.to) in artifact.folders()
    target = posixpath.join(op.to, posixpath.basename(path)) if into else op.to
    _put(op, files, path, _clean(target), ROOT, artifact)


def _extract(op: Copy, files: frozenset[str], artifact: Artifact) -> None:
    """A glob of tarballs unpacked into the destination (doublestar's ``Glob``)."""
    pattern = _regex(op.pattern, True)
    base = _selection_root(op.pattern)
    matches = [f for f in sorted(files) if pattern is not None and pattern.fullmatch(f)]
    if not matches:
        raise Unmapped(f"no file matches {op.pattern!r}")
    kept = [m for m in matches if not _excluded(m, base, op.exclude)]
    if not kept:
        raise Unmapped(f"every file matching {op.pattern!r} is excluded")
    for match in kept:
        if match.lower().endswith(_TARBALLS):
            _write(op, artifact, _clean(op.to), None, f"what {match!r} extracts (strategy Extract)")


def _put(
    op: Copy, files: frozenset[str], path: str, target: str, base: str, artifact: Artifact
) -> None:
    """``path`` (a file or folder) copied to ``target`` (``copyFileWithRoots``): a file merged
    into one there before under ``Merge`` (``shouldMergeFile``), a folder file by file but what
    ``exclude`` skips, never merged (``copyDirWithRoots``)."""
    if path in files:
        merged = op.strategy == "Merge" and target in artifact.files.keys() | artifact.made.keys()
        what = f"merged from several files (strategy Merge of {path!r})"
        _write(op, artifact, target, None if merged else path, what)
        return
    for file in _below(files, path):
        inside = file if path == ROOT else file[len(path) + 1 :]
        between = reversed(_parents(inside)[:-1])  # the folders walked into, then the file
        steps = [*(_clean(posixpath.join(path, folder)) for folder in between), file]
        if not any(_excluded(step, base, op.exclude) for step in steps):
            _write(op, artifact, _clean(posixpath.join(target, inside)), file)


def _write(op: Copy, artifact: Artifact, target: str, origin: str | None, what: str = "") -> None:
    """A file written at ``target`` of the artifact, which it may not leave (``os.Root``)."""
    if target == ".." or target.startswith("../"):
        raise Unmapped(f"its copy to {op.to!r} leaves the artifact")
    artifact.put(target, origin, what)


def _glob_destination(pattern: str, match: str, to: str) -> str:
    """Where a glob's match goes (``calculateGlobDestination``): below ``to`` at its whole
    path, but that ``dir/**`` drops ``dir/``."""
    prefix = pattern.removesuffix("/**") if pattern.endswith("/**") else None
    if prefix is not None and match.startswith(prefix + "/"):
        return _clean(posixpath.join(to, match[len(prefix) + 1 :]))
    return _clean(posixpath.join(to, match))


def _selection_root(pattern: str) -> str:
    """The literal part of a pattern before its first glob level (``sourceSelectionRoot``)."""
    parts = []
    for part in _clean(pattern).split("/"):
        if _GLOB.intersection(part):
            break
        parts.append(part)
    return _clean("/".join(parts))


def _excluded(path: str, base: str, patterns: Sequence[str]) -> bool:
    """Whether ``exclude`` skips ``path``, from the source's root or from ``base``
    (``shouldExcludePath``)."""
    if _matches_any(path, patterns):
        return True
    if base == ROOT or not path.startswith(base + "/"):
        return False
    return _matches_any(path[len(base) + 1 :], patterns)


def _matches_any(path: str, patterns: Sequence[str]) -> bool:
    """``shouldExclude``: a pattern matches the path, or one without ``/`` its last part."""
    name = posixpath.basename(path)
    for pattern in patterns:
        regex = _regex(pattern, True)
        if regex is None:
            continue
        if regex.fullmatch(path) or ("/" not in pattern and regex.fullmatch(name)):
            return True
    return False


@functools.cache
def _regex(pattern: str, doublestar: bool) -> re.Pattern[str] | None:
    """A glob as a regular expression, None when it is not one: Go's ``path.Match``
    (``doublestar=False``: ``*``, ``?``, ``[class]``, ``\\`` escapes, none across ``/``), or
    doublestar's ``Match`` (also ``**`` levels: zero or more folders, ``{a,b}``, ``[!class]``)."""
    try:
        return re.compile(_translate(pattern, doublestar), re.DOTALL)
    except (ValueError, re.error):
        return None


def _translate(pattern: str, doublestar: bool) -> str:
    """The regular expression of a glob; raises ValueError where it is malformed."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if doublestar and _globstar(pattern, index):
            if index + 2 == len(pattern) and out:  # "/**" at the end: the folder or below
                out[-1] = "(?:/.*)?"
                index += 2
            elif index + 2 == len(pattern):  # "**" alone: anything
                out.append(".*")
                index += 2
            else:  # "**/": zero or more folders
                out.append("(?:.*/)?")
                index += 3
        elif char == "*":
            out.append("[^/]*")
            index += 1
        elif char == "?":
            out.append("[^/]")
            index += 1
        elif char == "[":
            index = _class(pattern, index, doublestar, out)
        elif char == "{" and doublestar:
            index = _alternatives(pattern, index, out)
        elif char == "\\":
            if index + 1 == len(pattern):
                raise ValueError("a trailing escape")
            out.append(re.escape(pattern[index + 1]))
            index += 2
        else:
            out.append("/" if char == "/" else re.escape(char))
            index += 1
    return "".join(out)


def _globstar(pattern: str, index: int) -> bool:
    """Whether a ``**`` level (between slashes, or at an end) starts at ``index``."""
    return (
        pattern.startswith("**", index)
        and (index == 0 or pattern[index - 1] == "/")
        and (index + 2 == len(pattern) or pattern[index + 2] == "/")
    )


def _class(pattern: str, index: int, doublestar: bool, out: list[str]) -> int:
    """A ``[class]`` at ``index`` appended to ``out``; the index after it."""
    end = index + 1
    negated = end < len(pattern) and (pattern[end] == "^" or (doublestar and pattern[end] == "!"))
    end += negated
    body: list[str] = []
    while end < len(pattern) and (pattern[end] != "]" or not body):
        if pattern[end] == "\\" and end + 1 < len(pattern):
            body.append(re.escape(pattern[end + 1]))
            end += 2
            continue
        body.append("-" if pattern[end] == "-" else re.escape(pattern[end]))
        end += 1
    if end >= len(pattern) or not body:
        raise ValueError("an unclosed class")
    out.append(f"(?!/)[{'^' if negated else ''}{''.join(body)}]")
    return end + 1


def _alternatives(pattern: str, index: int, out: list[str]) -> int:
    """A doublestar ``{a,b}`` at ``index`` appended to ``out``; the index after it."""
    depth, end, parts, start = 0, index, [], index + 1
    while end < len(pattern):
        char = pattern[end]
        if char == "\\":
            end += 2
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 1 and char == ",":
            parts.append(pattern[start:end])
            start = end + 1
        if depth == 0:
            parts.append(pattern[start:end])
            out.append("(?:" + "|".join(_translate(p, True) for p in parts) + ")")
            return end + 1
        end += 1
    raise ValueError("unclosed alternatives")


def _base(inside: str, origin: str) -> str | None:
    """The repository folder the artifact's root stands for, by one of its files: the part of
    its origin before its path in the artifact (None: it was moved or renamed)."""
    if inside == origin:
        return ROOT
    if origin.endswith("/" + inside):
        return origin[: -len(inside) - 1]
    return None


def _below(files: Iterable[str], folder: str) -> list[str]:
    """The files in ``folder`` or below (all of them for the root)."""
    return sorted(f for f in files if folder == ROOT or f.startswith(folder + "/"))


def _parents(path: str) -> list[str]:
    """The folders ``path`` is in, nearest first, the root last."""
    found = []
    while path not in (ROOT, ""):
        path = posixpath.dirname(path) or ROOT
        found.append(path)
    return found


def _clean(path: str) -> str:
    """Go's ``filepath.Clean`` of a relative path ("." for none)."""
    return posixpath.normpath(path) if path else ROOT
