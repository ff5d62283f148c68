"""What import could not map, or maps only with the user's help: ``file:LINE: what — what to
do``, printed by the command and written as comments at the top of fleet.py."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fleetgen.importer.repo import Doc

BY_HAND = "fleetgen has no equivalent: add it by hand if it matters"


@dataclass(frozen=True, slots=True, order=True)
class Finding:
    """One thing not mapped (or mapped with a placeholder), at a repo-relative file and line."""

    file: str
    line: int
    what: str
    todo: str

    def render(self) -> str:
        """``file:LINE: what — what to do`` (no line when unknown)."""
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.what} — {self.todo}"


def in_order(findings: Iterable[Finding]) -> list[Finding]:
    """Each finding once, by file, line and text."""
    return sorted(set(findings))


def dotted(path: Sequence[str | int]) -> str:
    """A field's path as the engines' docs write it: ``spec.generators[0].git``."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).removeprefix(".")


def unmapped(
    doc: Doc,
    mapped: Mapping[str, Sequence[str]],
    todo: Mapping[str, str],
    spec: Mapping[str, Any] | None = None,
    at: tuple[str | int, ...] = ("spec",),
    label: str | None = None,
) -> list[Finding]:
    """A finding at ``doc`` for each field of a spec (``doc``'s, else ``spec``, found at ``at``
    in it, named ``label``, by default the last key of ``at``) that import does not map: not a
    key of ``mapped``, or below one a key its value does not list (an empty list: all of it is
    read). ``todo`` says what to do for some keys; the others get a generic advice."""
    found = []
    for key, value in (doc.spec if spec is None else spec).items():
        parts = mapped.get(key)
        extra: list[tuple[str, ...]]
        if parts is None:
            extra = [(key,)]
        elif parts and isinstance(value, Mapping):
            extra = [(key, part) for part in value if part not in parts]
        else:
            extra = []
        for path in extra:
            shown = ".".join(path)
            found.append(
                doc.finding(
                    f"{doc.kind} {doc.name!r}: {label or at[-1]}.{shown} not mapped",
                    todo.get(path[0], BY_HAND),
                    (*at, *path),
                )
            )
    return found
