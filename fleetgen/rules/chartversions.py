"""Chart version strings as Argo CD and Flux read them: both through Masterminds semver (v3.4 in
Argo CD, v3.5 in Flux; the grammar below is the same in both), which this module follows.

A string is

- **exact** when it is a full SemVer 2 version (``1.2.3``, optional ``v``, pre-release and build
  suffixes): Argo CD's repo server pins it (``newHelmClientResolveRevision``:
  ``versions.IsVersion``, i.e. ``semver.NewVersion`` parses it) and Flux matches it exactly
  first (source-controller ``ChartRepository.getChartVersion``);
- a **range** when ``semver.NewVersion`` refuses it and ``semver.NewConstraint`` parses it
  (``>=1.0.0``, ``6.x``, ``~1.2``, ``^1``, ``*``, ``>=1.0.0 <2.0.0``, ``1.0.0 - 1.4.0``, ``||``):
  Argo CD picks the highest tag that satisfies it (``versions.MaxVersion``), Flux the highest
  chart version of the index (``getChartVersion``) or OCI tag (``OCIRepositoryReconciler
  .getTagBySemver``, for an OCIRepository's ``ref.semver``), each on its own at sync time;
- **partial** when ``semver.NewVersion`` coerces it (``1.2``, ``6``, ``v1``, ``01.2.3``): Argo CD
  then asks for that tag as written, while Flux, finding no chart of that exact version, reads it
  as the constraint ``1.2.x``. The engines disagree, so the spec refuses it.

A version a range is matched against is parsed as Flux's ``version.ParseVersion`` does (a leading
``v``, then ``semver.StrictNewVersion``). Pre-releases satisfy a range only when one of its
comparisons (in the same ``||`` alternative) names one (``Constraints.Check``); build metadata
is ignored when comparing (``Version.Compare``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

Kind = Literal["exact", "range", "partial"]

_MAX = 2**64 - 1  # versions are uint64 segments
_IDENT = re.compile(r"[0-9A-Za-z-]+")
# semver.NewVersion (CoerceNewVersion, the default since v3.4.0): looseSemVerRegex
_LOOSE = re.compile(
    r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)
# constraints.go: cvRegex and the operators
_CV = (
    r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"
_CONSTRAINT = re.compile(rf"\s*({_OPS})\s*({_CV})\s*")
_RANGE = re.compile(rf"\s*({_CV})\s+-\s+({_CV})\s*")
_FIND = re.compile(rf"({_OPS})\s*({_CV})")
_VALID = re.compile(rf"(\s*({_OPS})\s*({_CV})\s*)((?:\s+|,\s*)({_OPS})\s*({_CV})\s*)*")
_X = frozenset({"x", "X", "*"})


@dataclass(frozen=True, slots=True)
class Version:
    """A parsed version: its numbers, pre-release and the text it was parsed from."""

    major: int
    minor: int
    patch: int
    pre: str = ""
    text: str = ""

    def compare(self, other: Version) -> int:
        """-1, 0 or 1 as Masterminds' ``Version.Compare`` (build metadata ignored)."""
        mine, theirs = (self.major, self.minor, self.patch), (other.major, other.minor, other.patch)
        if mine != theirs:
            return -1 if mine < theirs else 1
        if self.pre == other.pre:
            return 0
        if not self.pre or not other.pre:
            return 1 if not self.pre else -1
        return _compare_pre(self.pre, other.pre)


def _compare_pre(mine: str, theirs: str) -> int:
    """``comparePrerelease``: identifier by identifier, numbers below words, fewer below more."""
    left, right = mine.split("."), theirs.split(".")
    for index in range(max(len(left), len(right))):
        a = left[index] if index < len(left) else ""
        b = right[index] if index < len(right) else ""
        if a == b:
            continue
        if not a or not b:
            return -1 if not a else 1
        if a.isdigit() and b.isdigit():
            return -1 if int(a) < int(b) else 1
        if a.isdigit() or b.isdigit():
            return -1 if a.isdigit() else 1
        return -1 if a < b else 1
    return 0


def _identifiers(text: str, numeric_zero: bool) -> bool:
    """``validatePrerelease`` (``numeric_zero``: no leading zero in a number) or
    ``validateMetadata``."""
    for part in text.split("."):
        if not _IDENT.fullmatch(part):
            return False
        if numeric_zero and part.isdigit() and len(part) > 1 and part[0] == "0":
            return False
    return True


def loose(text: str) -> Version | None:
    """``semver.NewVersion``: missing minor and patch read as 0, leading zeros allowed."""
    match = _LOOSE.fullmatch(text)
    if match is None:
        return None
    major, minor, patch = (int(part.lstrip(".")) if part else 0 for part in match.group(1, 2, 3))
    pre, metadata = match.group(5) or "", match.group(8) or ""
    if max(major, minor, patch) > _MAX or (pre and not _identifiers(pre, True)):
        return None
    if metadata and not _identifiers(metadata, False):
        return None
    return Version(major, minor, patch, pre, text)


def strict(text: str) -> Version | None:
    """Flux's ``version.ParseVersion``: ``semver.StrictNewVersion`` after an optional ``v``."""
    bare = text.removeprefix("v")
    parts = bare.split(".", 2)
    if len(parts) != 3:
        return None
    rest, _, metadata = parts[2].partition("+")
    last, dash, pre = rest.partition("-")
    if ("+" in parts[2] and not _identifiers(metadata, False)) or (
        dash and not _identifiers(pre, True)
    ):
        return None
    digits = [parts[0], parts[1], last]
    if not all(n.isascii() and n.isdigit() and (n == "0" or n[0] != "0") for n in digits):
        return None
    major, minor, patch = (int(n) for n in digits)
    return Version(major, minor, patch, pre, text) if max(major, minor, patch) <= _MAX else None


@functools.lru_cache(maxsize=1024)  # asked per placement of a chart app
def kind(text: str) -> Kind | None:
    """What ``text`` is to both engines: an exact version, a range, a partial version (which
    they read differently), or nothing they read as a version (None)."""
    if strict(text) is not None:
        return "exact"
    if loose(text) is not None:
        return "partial"
    return "range" if Range.parse(text) is not None else None


def is_range(text: str) -> bool:
    """Whether ``text`` is a range (`kind`)."""
    return kind(text) == "range"


@dataclass(frozen=True, slots=True)
class _Comparison:
    """One comparison of a range (``constraint``): operator, version, which parts were wild."""

    op: str
    version: Version
    dirty: bool  # some part is wild or missing
    minor_dirty: bool
    patch_dirty: bool

    def allows(self, v: Version) -> bool:
        return _OPERATORS[self.op](v, self)


def _comparison(text: str) -> _Comparison | None:
    """``parseConstraint``: a wildcard or missing part makes the comparison dirty (``1.2``,
    ``1.2.x``: any patch; ``1``, ``1.x``: any minor; ``*``: anything)."""
    match = _CONSTRAINT.fullmatch(text)
    if match is None:
        return None
    op, whole, major, minor, patch, dashed = match.group(1, 2, 3, 4, 5, 6)
    dashed = dashed or ""
    minor_dirty = patch_dirty = False
    if major in _X:
        version = loose(f"0.0.0{dashed}")
    elif minor is None or minor[1:] in _X:
        version, minor_dirty = loose(f"{major}.0.0{dashed}"), True
    elif patch is None or patch[1:] in _X:
        version, patch_dirty = loose(f"{major}{minor}.0{dashed}"), True
    else:
        version = loose(whole)
    if version is None:
        return None
    dirty = major in _X or minor_dirty or patch_dirty
    return _Comparison(op, version, dirty, minor_dirty, patch_dirty)


def _tilde(v: Version, c: _Comparison) -> bool:
    """``~1.2.3``: >=1.2.3 <1.3.0; ``~1``: >=1.0.0 <2.0.0; ``~0.0.0`` and ``*``: anything."""
    con = c.version
    if v.compare(con) < 0:
        return False
    if (con.major, con.minor, con.patch) == (0, 0, 0) and not (c.minor_dirty or c.patch_dirty):
        return True
    return v.major == con.major and (c.minor_dirty or v.minor == con.minor)


def _equal(v: Version, c: _Comparison) -> bool:
    return _tilde(v, c) if c.dirty else v.compare(c.version) == 0


def _not_equal(v: Version, c: _Comparison) -> bool:
    con = c.version
    if not c.dirty:
        return v.compare(con) != 0
    if con.major != v.major:
        return True
    if c.minor_dirty:
        return False
    if con.minor != v.minor:
        return True
    if c.patch_dirty:
        return (v.pre or con.pre) != "" and _compare_pre(v.pre, con.pre) != 0
    return v.compare(con) != 0


def _greater(v: Version, c: _Comparison) -> bool:
    con = c.version
    if not c.dirty:
        return v.compare(con) > 0
    if v.major != con.major:
        return v.major > con.major
    if c.minor_dirty:
        return False
    if c.patch_dirty:
        return v.minor > con.minor
    return v.compare(con) > 0


def _less_equal(v: Version, c: _Comparison) -> bool:
    con = c.version
    if not c.dirty:
        return v.compare(con) <= 0
    if v.major > con.major:
        return False
    return not (v.major == con.major and v.minor > con.minor and not c.minor_dirty)


def _caret(v: Version, c: _Comparison) -> bool:
    """``^1.2.3``: >=1.2.3 <2.0.0; ``^0.2.3``: >=0.2.3 <0.3.0; ``^0.0.3``: =0.0.3."""
    con = c.version
    if v.compare(con) < 0:
        return False
    if con.major > 0 or c.minor_dirty:
        return v.major == con.major
    if v.major > 0:
        return False
    if con.minor > 0 or c.patch_dirty:
        return v.minor == con.minor
    return v.minor == 0 and v.patch == con.patch


_OPERATORS: dict[str, Callable[[Version, _Comparison], bool]] = {
    "": _equal,
    "=": _equal,
    "!=": _not_equal,
    ">": _greater,
    "<": lambda v, c: v.compare(c.version) < 0,
    ">=": lambda v, c: v.compare(c.version) >= 0,
    "=>": lambda v, c: v.compare(c.version) >= 0,
    "<=": _less_equal,
    "=<": _less_equal,
    "~": _tilde,
    "~>": _tilde,
    "^": _caret,
}


@dataclass(frozen=True, slots=True)
class Range:
    """A range as ``semver.NewConstraint`` parses it: alternatives (``||``) of comparisons that
    must all hold."""

    alternatives: tuple[tuple[_Comparison, ...], ...]

    @classmethod
    def parse(cls, text: str) -> Range | None:
        """``NewConstraint``: hyphen ranges rewritten to ``>= a, <= b``, then each ``||``
        alternative validated and split into its comparisons; None where it refuses."""
        for match in _RANGE.finditer(text):
            text = text.replace(match.group(0), f">= {match.group(1)}, <= {match.group(11)} ", 1)
        alternatives = []
        for part in text.split("||"):
            if not _VALID.fullmatch(part):
                return None
            found = [m.group(0) for m in _FIND.finditer(part)] or [part]
            comparisons = [_comparison(item) for item in found]
            if any(c is None for c in comparisons):
                return None
            alternatives.append(tuple(c for c in comparisons if c is not None))
        return cls(tuple(alternatives))

    def allows(self, version: Version) -> bool:
        """``Constraints.Check``: some alternative's comparisons all hold; a pre-release only
        where a comparison of that alternative names one."""
        return any(
            all(c.allows(version) for c in group)
            and (not version.pre or any(c.version.pre for c in group))
            for group in self.alternatives
        )


def highest(text: str, versions: Iterable[str]) -> str | None:
    """The highest of ``versions`` (each parsed as Flux parses chart versions; others skipped)
    that the range ``text`` allows, as both engines pick it; ties (versions that differ only in
    build metadata) go to the greatest text, for a deterministic pick."""
    found = Range.parse(text)
    best: Version | None = None
    for candidate in filter(None, map(strict, versions)):
        if found is None or not found.allows(candidate):
            continue
        order = 0 if best is None else candidate.compare(best)
        if best is None or order > 0 or (order == 0 and candidate.text > best.text):
            best = candidate
    return best.text if best is not None else None


def has_build_metadata(text: str) -> bool:
    """Whether the range ``text`` names build metadata (``+...``), which comparing ignores."""
    return "+" in text
