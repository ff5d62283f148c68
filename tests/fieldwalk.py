"""Mutations of one YAML object's fields in its file's text, for the field walk
(`tests.test_import_fields`): each leaf changed in place on the lines it had (a string gets a
suffix, a number +1, a boolean flipped, a null or an empty collection a value) and each list
item removed; the file's other documents, comments and lines stay as they are. Positions come
from `fleetgen.manifests.yamlio`'s nodes, new scalars from its writer.

And a memo in front of the real kustomize: a build is keyed by the content of what it reads
(the folder, and the folders and files its kustomizations name), so a mutation rebuilds only
the folders it reaches."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from fleetgen.inputs.reading import KUSTOMIZATION_FILES
from fleetgen.manifests.yamlio import dump, load_all
from fleetgen.tools.kustomize import KustomizeBuildError

SUFFIX = "-fieldwalk"
# A Go duration (Flux's intervals and timeouts): made longer by a second, so it stays one.
_DURATION = re.compile(r"(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+")
Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class Mutation:
    """One field changed (or, ``removal``, one list item removed): the text
    ``text[start:end]`` becomes ``new``."""

    path: Path_  # from the object's root
    line: int  # 1-based, of the field in its file
    removal: bool
    start: int
    end: int
    new: str
    value: str | None = None  # the string it makes, for a string

    def apply(self, text: str) -> str:
        return text[: self.start] + self.new + text[self.end :]

    @property
    def dotted(self) -> str:
        return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.path)[1:]


def mutations(text: str, node: yaml.Node, obj: Any, path: Path_ = ()) -> Iterator[Mutation]:
    """Every mutation of the object ``obj`` whose node in ``text`` is ``node``."""
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        if not node.value:
            yield _replace(node, path, "{fieldwalk: x}")
        for key, value in node.value:
            yield from mutations(text, value, obj[key.value], (*path, key.value))
    elif isinstance(node, yaml.SequenceNode):
        if not node.value:
            yield _replace(node, path, "[fieldwalk]")
        for index, item in enumerate(node.value):
            start, end = _item_span(text, node, index)
            yield Mutation((*path, index), item.start_mark.line + 1, True, start, end, "")
            yield from mutations(text, item, obj[index], (*path, index))
    elif isinstance(node, yaml.ScalarNode):
        if isinstance(obj, str):
            at = _suffix_at(text, node)
            added = "1s" if _DURATION.fullmatch(obj) else SUFFIX
            yield Mutation(path, line, False, at, at, added, obj + added)
        else:
            yield _replace(node, path, _scalar(_changed(obj)), pad=not node.value)


def _changed(value: Any) -> Any:
    """A value of the same type, other than ``value``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    return "fieldwalk"  # null, dates: a string


def _scalar(value: Any) -> str:
    """``value`` as yamlio writes it, on one line."""
    return dump(value).removesuffix("\n...\n").strip()


def _replace(node: yaml.Node, path: Path_, new: str, pad: bool = False) -> Mutation:
    start, end = node.start_mark.index, node.end_mark.index
    return Mutation(path, node.start_mark.line + 1, False, start, end, f" {new}" if pad else new)


def _suffix_at(text: str, node: yaml.ScalarNode) -> int:
    """Where a suffix goes in a string scalar: at its end (plain), before its closing quote,
    or at the end of a block scalar's first line of text (a patch's, values' first key)."""
    end = node.end_mark.index
    if node.style in ('"', "'"):
        return end - 1
    if node.style in ("|", ">"):
        body = text[node.start_mark.index : end]
        first = next(line for line in body.splitlines()[1:] if line.strip())
        return node.start_mark.index + body.index(first) + len(first.rstrip())
    return end


def _item_span(text: str, seq: yaml.SequenceNode, index: int) -> tuple[int, int]:
    """The text that removing item ``index`` of ``seq`` removes: its lines (a block
    sequence), or the item and one comma (a flow one)."""
    items = seq.value
    item = items[index]
    if seq.flow_style:
        if index + 1 < len(items):
            return item.start_mark.index, items[index + 1].start_mark.index
        if index > 0:
            return items[index - 1].end_mark.index, item.end_mark.index
        return item.start_mark.index, item.end_mark.index
    starts = _line_starts(text)
    first = item.start_mark.line
    last = items[index + 1].start_mark.line if index + 1 < len(items) else seq.end_mark.line
    if last <= first:  # the sequence ends on its last item's line (end of the file)
        last = first + 1
    return starts[first], starts[min(last, len(starts) - 1)]


def _line_starts(text: str) -> list[int]:
    """The offset each line starts at, and the text's end."""
    starts = [0]
    starts += [i + 1 for i, char in enumerate(text) if char == "\n"]
    if starts[-1] != len(text):
        starts.append(len(text))
    return starts


class Memo:
    """kustomize's ``build`` with its output kept by the digest of what it reads, and the
    builds asked since `forget`: the files each read, and its output."""

    def __init__(self, build: Callable[[Path], str]) -> None:
        self.build = build
        self.done: dict[str, str | KustomizeBuildError] = {}
        self.asked: list[tuple[set[Path], str]] = []

    def __call__(self, path: Path, *args: Any) -> str:
        inputs = sorted(_inputs(Path(path), set()))
        names = [(name, digest) for _, name, digest in inputs]
        key = hashlib.sha256(json.dumps(names).encode()).hexdigest()
        if key not in self.done:
            try:
                self.done[key] = self.build(path, *args)
            except KustomizeBuildError as error:  # kept, and raised again
                self.done[key] = error
        found = self.done[key]
        self.asked.append(
            (
                {file for file, _, _ in inputs},
                "" if isinstance(found, KustomizeBuildError) else found,
            )
        )
        if isinstance(found, KustomizeBuildError):
            raise found
        return found

    def forget(self) -> None:
        self.asked = []

    def outputs(self, file: Path) -> list[str]:
        """The outputs of the builds asked since `forget` that read ``file``."""
        return [output for files, output in self.asked if file.resolve() in files]


def _inputs(folder: Path, seen: set[Path]) -> Iterator[tuple[Path, str, str]]:
    """(path, name, digest) of every file a build of ``folder`` may read: its files (named
    relative to it) and what its kustomizations name outside it (by absolute path),
    kustomizations with the paths they name resolved."""
    folder = folder.resolve()
    if folder in seen:
        return
    seen.add(folder)
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.name in KUSTOMIZATION_FILES:
            resolved, named = _resolved(load_all(data), path.parent)
            data = json.dumps(resolved, sort_keys=True, default=str).encode()
            for ref in named:
                if ref.is_dir():
                    yield from _inputs(ref, seen)
                elif not ref.is_relative_to(folder):
                    yield ref, str(ref), hashlib.sha256(ref.read_bytes()).hexdigest()
        yield path, path.relative_to(folder).as_posix(), hashlib.sha256(data).hexdigest()


def _resolved(value: Any, base: Path) -> tuple[Any, list[Path]]:
    """``value`` with each string that names a path under ``base`` made absolute, and those
    paths."""
    if isinstance(value, Mapping):
        pairs = [(key, _resolved(item, base)) for key, item in value.items()]
        return {key: item for key, (item, _) in pairs}, [p for _, (_, ps) in pairs for p in ps]
    if isinstance(value, list):
        parts = [_resolved(item, base) for item in value]
        return [item for item, _ in parts], [p for _, ps in parts for p in ps]
    if isinstance(value, str) and value and "\n" not in value and "://" not in value:
        target = (base / value).resolve()
        if target.exists():
            return str(target), [target]
    return value, []
