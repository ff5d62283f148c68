"""How YAML readers resolve a plain scalar, and which strings YAML cannot carry at all.

Generated files are read by PyYAML (YAML 1.1), go-yaml v2 (``sigs.k8s.io/yaml``: kubectl apply,
Argo CD), go-yaml v3 (kyaml: kustomize) and YAML 1.2 tools such as ruamel.yaml. `needs_quotes`
says whether any of them would resolve a plain string to something else (``y``, ``0o17``,
``08``, ``1e3``, ``12:30``...); `uncarriable` names characters none of them reads back. Pure
rules, no YAML library: the writer (`fleetgen.manifests.yamlio`) and the spec checks both ask them.
"""

from __future__ import annotations

import re

# Characters fleetgen refuses: outside YAML's printable set (no reader accepts them raw: C0 and C1
# controls but tab and line breaks, surrogates, U+FFFE, U+FFFF), and NEL (U+0085), a line break to
# YAML 1.1 but not to 1.2, which kustomize writes unescaped so that kubectl and Argo CD then read
# it as a space. Listed, not as the negated printable set: that takes 10 ms to compile.
_UNCARRIABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
# Line breaks (U+2028/U+2029 only in YAML 1.1): a plain scalar cannot hold them.
_LINE_BREAK = re.compile("[\n\r\u2028\u2029]")

# First characters of every implicitly resolved plain scalar, in all four readers.
_RESOLVABLE_FIRST = frozenset("-+.0123456789yYnNtTfFoO~<=")
_GO_NUMERIC_FIRST = frozenset("-+.0123456789")

# Union of the implicit resolvers of PyYAML (YAML 1.1) and ruamel.yaml (YAML 1.2 core and 1.1),
# copied from their sources, plus go-yaml's boolean/null/special-float table and its timestamps.
_IMPLICIT = re.compile(
    r"""
    # booleans: YAML 1.1 (PyYAML, go-yaml v2); YAML 1.2 core is the true/false subset
      y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
    # null, merge key, value key
    | ~|null|Null|NULL | << | =
    # floats: ruamel's YAML 1.2 and 1.1 patterns (a superset of PyYAML's), 1.1 sexagesimal,
    # .inf/.nan as in go-yaml's table
    | [-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    | [-+]?[0-9][0-9_]*[eE][-+]?[0-9]+
    | [-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
    | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
    # ints, YAML 1.1 (PyYAML, ruamel) incl. sexagesimal, and YAML 1.2 (ruamel)
    | [-+]?0b[0-1_]+ | [-+]?0o?[0-7_]+ | [-+]?[0-9_]+ | [-+]?0x[0-9a-fA-F_]+
    | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
    # timestamps: PyYAML/ruamel; go-yaml tries time.Parse on YYYY-M-D[(T|t| )...]
    | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt\ \t].*)?
    """,
    re.VERBOSE | re.DOTALL,
)
# go-yaml v2/v3 numbers, matched after removing every "_": strconv.ParseInt/ParseUint(s, 0, 64)
# (0x/0X, 0o/0O, 0b/0B, leading-0 octal; digits that fail as octal then parse as a float) and
# yamlStyleFloat + strconv.ParseFloat. Out-of-range numbers stay strings in Go; quoting them
# anyway is harmless.
_GO_NUMBER = re.compile(
    r"[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+"
    r"|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)"
)


def needs_quotes(s: str) -> bool:
    """Whether the plain scalar ``s`` could be read as anything but the string ``s``.

    Covers how PyYAML, ruamel.yaml (YAML 1.2), go-yaml v2 and go-yaml v3 resolve plain scalars
    (null, booleans, ints, floats, timestamps, merge and value keys) and that a plain scalar
    cannot hold a line break. Syntax (indicators, spaces, ``: ``, `` #``) is not checked here:
    libyaml's emitter quotes those on its own. Raises ValueError for characters YAML cannot carry.
    """
    if not (s.isascii() and s.isprintable()):
        _check_carriable(s)
        if _LINE_BREAK.search(s):
            return True
    if not s:
        return True
    if s[0] not in _RESOLVABLE_FIRST:
        return False
    if _IMPLICIT.fullmatch(s):
        return True
    return s[0] in _GO_NUMERIC_FIRST and _GO_NUMBER.fullmatch(s.replace("_", "")) is not None


def uncarriable(s: str) -> str | None:
    """Why ``s`` cannot be written as YAML, or None: control characters (C0 but tab/LF/CR, DEL,
    C1), surrogates, U+FFFE/U+FFFF and NEL are refused."""
    bad = _UNCARRIABLE.search(s)
    if bad is None:
        return None
    return (
        f"character U+{ord(bad.group()):04X} at index {bad.start()} is a control character"
        " or non-character that YAML readers refuse or alter"
    )


def _check_carriable(s: str) -> None:
    problem = uncarriable(s)
    if problem:
        raise ValueError(f"cannot write {s[:60]!r} as YAML: {problem}")
