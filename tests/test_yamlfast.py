"""yamlfast: the pure-Python writer gives libyaml's bytes exactly, or gives up.

The fast path is tested on its own against the libyaml dumper (``_libyaml_dump``), so that a
fast-path bug shows even where production would have fallen back; dump_documents is tested
against libyaml on streams that mix fast and fallback documents.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from fleetgen.manifests import yamlfast
from fleetgen.manifests.yamlfast import BlockWriter, scalar
from fleetgen.manifests.yamlio import _kubernetes_order, _libyaml_dump, dump_documents
from fleetgen.manifests.yamlscalar import needs_quotes
from tests.helpers import examples

# Characters with a meaning to YAML's scanner or resolvers, a letter and a digit.
SIGNIFICANT = " -?:#,[]{}&*!|>'\"%@`.~=<+0aey/\\$"
# Pieces of Kubernetes names, label keys, paths, URLs and images, and YAML-special fragments.
PIECES = [
    "app",
    "cluster-7",
    "flux-system",
    "fleetgen.io/",
    "kustomize.toolkit.fluxcd.io/v1",
    "v1",
    "./output/overlays/",
    "../../",
    "https://",
    "git.example.com",
    ":443",
    "/bench.git",
    "@",
    "sha256:",
    "registry.example.com/app",
    ":1.0",
    "C=37",
    "--flag=",
    "10m",
    "1.0",
    "1",
    "0",
    "08",
    "1e3",
    "0x1F",
    "on",
    "y",
    "no",
    "true",
    "null",
    "~",
    "2024-01-01",
    "12:30",
    "{{",
    " .Values.x ",
    "}}",
    "${HOME}",
    "-",
    "--",
    "---",
    ".",
    "..",
    "...",
    ":",
    ": ",
    " #",
    "#",
    " ",
    "  ",
    "'",
    "''",
    '"',
    "?",
    "? ",
    "- ",
    ",",
    "[",
    "]",
    "{",
    "}",
    "*",
    "&",
    "!",
    "%",
    "|",
    ">",
    "<<",
    "=",
    "`",
    "\\",
    "_",
]

_SHORT = (  # at most 4 * 30 characters: short enough for a simple key
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=4).map("".join)
    | st.text(st.sampled_from(SIGNIFICANT), max_size=8)
)
_COVERED_STRINGS = _SHORT | st.builds(  # up to the 1024-character limit
    lambda head, n: head + "1" * (n - len(head)),
    st.sampled_from(["", "a", "'", "a: "]),
    st.integers(1010, 1024),
)
_COVERED_KEYS = (  # up to libyaml's 128-character limit of a simple key
    _SHORT
    | st.sampled_from(["apiVersion", "kind", "metadata", "name", "namespace", "labels"])
    | st.builds(lambda c, n: c * n, st.sampled_from(["k", "1", "'", " "]), st.integers(120, 128))
)
_COVERED_SCALARS = _COVERED_STRINGS | st.integers() | st.booleans() | st.none()
# Beyond the fast path: non-ASCII, tabs, line breaks (a trailing one makes a |+ block), floats,
# long strings, long or non-string keys.
_ODD = st.sampled_from(["café", "日本", "\t", "a\nb", "x\n\n", "\r", "\u2028", "\xa0", "😀"])
_ODD_SCALARS = _ODD | st.floats(allow_nan=False) | st.just("1" * 1025)
_ODD_KEYS = _ODD | st.integers() | st.none() | st.just("k" * 129) | st.just("'" * 129)


def _documents(
    keys: st.SearchStrategy[Any], scalars: st.SearchStrategy[Any]
) -> st.SearchStrategy[Any]:
    nodes = st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=4)
            | st.lists(children, max_size=3).map(tuple)
            | st.dictionaries(keys, children, max_size=4)
        ),
        max_leaves=25,
    )
    return st.dictionaries(keys, nodes, min_size=1, max_size=6) | st.lists(
        nodes, min_size=1, max_size=4
    )


_COVERED_DOCUMENTS = _documents(_COVERED_KEYS, _COVERED_SCALARS)
# Covered and uncovered leaves mixed: the fast path must give up on documents with the latter.
_ANY_DOCUMENTS = _documents(_COVERED_KEYS | _ODD_KEYS, _COVERED_SCALARS | _ODD_SCALARS)
_SHARED = BlockWriter(needs_quotes)  # its caches carry over from example to example


@settings(
    max_examples=examples(300, 4000), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(_COVERED_DOCUMENTS)
def test_fast_document_is_libyamls_text(doc: dict[str, Any] | list[Any]) -> None:
    doc = _kubernetes_order(doc)
    assert _SHARED.document(doc) == _libyaml_dump([doc])


@settings(
    max_examples=examples(200, 2000), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(_ANY_DOCUMENTS)
def test_fast_document_is_libyamls_text_or_none(doc: dict[Any, Any] | list[Any]) -> None:
    doc = _kubernetes_order(doc)
    fast = _SHARED.document(doc)
    event("fast path" if fast is not None else "fallback")
    if fast is not None:
        assert fast == _libyaml_dump([doc])


def _short_strings() -> list[str]:
    """Every string of up to 3 significant characters, and of 4 from a smaller set."""
    strings = [
        "".join(chars) for size in range(4) for chars in itertools.product(SIGNIFICANT, repeat=size)
    ]
    strings += ["".join(chars) for chars in itertools.product(" -?:#.'a0", repeat=4)]
    return strings


def test_every_short_string_is_written_as_libyaml_writes_it() -> None:
    """As value, sequence item and key: the plain-or-quoted choice is libyaml's, exhaustively."""
    strings = _short_strings()
    doc = {
        "values": {f"k{i}": s for i, s in enumerate(strings)},
        "items": strings,
        "keys": {s: i for i, s in enumerate(strings)},
    }
    fast = BlockWriter(needs_quotes).document(doc)
    assert fast is not None
    expected = _libyaml_dump([doc])
    pairs = zip(fast.splitlines(), expected.splitlines(), strict=False)
    assert fast == expected, next((pair for pair in pairs if pair[0] != pair[1]), None)


@pytest.mark.parametrize(
    "s",
    [
        "",
        "a",
        "it's",
        "'",
        " a",
        "a ",
        "a: b",
        "a #b",
        "-",
        "- a",
        "-a",
        "?a",
        "x:",
        "---x",
        "...x",
        "..x",
        "1",
        "on",
        "#",
    ],
)
def test_scalar_quotes_as_libyaml_does(s: str) -> None:
    assert f"k: {scalar(s, needs_quotes)}\n" == _libyaml_dump([{"k": s}])


@pytest.mark.parametrize("s", ["é", "\t", "a\nb", "\r", "\x7f", "x" * 1025])
def test_scalar_gives_up_outside_printable_ascii_or_when_long(s: str) -> None:
    assert scalar(s, needs_quotes) is None


def _nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = {"k": [leaf]}
    return leaf


@pytest.mark.parametrize(
    "doc",
    [
        {},
        [],
        "x",
        1,
        None,
        {"k": 1.5},
        {1: "v"},
        {"k": "é"},
        {"k" * 129: 1},
        {"k": {"a"}},
        {"k": b"x"},
        {"k": ["a", "b\n"]},
        _nested(70, "deep"),
    ],
)
def test_fast_path_gives_up_on_what_it_does_not_cover(doc: Any) -> None:
    assert BlockWriter(needs_quotes).document(doc) is None


def test_a_flux_kustomization_takes_the_fast_path() -> None:
    doc = {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {
            "name": "app-1-c0001",
            "namespace": "flux-system",
            "labels": {"fleetgen.io/app": "app-1", "ring": "1"},
        },
        "spec": {
            "interval": "10m",
            "path": "./output/overlays/app-1/clusters/c0001",
            "prune": True,
            "sourceRef": {"kind": "GitRepository", "name": "flux-system"},
            "dependsOn": [{"name": "platform-c0001"}],
            "patches": [],
            "retries": 3,
            "postBuild": {"substitute": {"url": "https://c1.example.com:443/x?a=b"}},
            "decryption": None,
        },
    }
    fast = BlockWriter(needs_quotes).document(doc)
    assert fast == _libyaml_dump([doc])
    assert "    ring: '1'\n" in fast


def test_full_caches_start_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlfast, "_MAX_CACHE", 3)
    doc = {f"k{i}": [f"v{i}", "1", {"on": ""}] for i in range(10)}
    writer = BlockWriter(needs_quotes)
    assert writer.document(doc) == writer.document(doc) == _libyaml_dump([doc])


_STREAM_DOCUMENTS = _ANY_DOCUMENTS | st.sampled_from(
    [{}, [], "x", "x\n\n", 1, None, {"k": "x\n\n"}, ["x\n\n"], {"k": "é"}]
)


@settings(
    max_examples=examples(100, 1200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.lists(_STREAM_DOCUMENTS, max_size=4))
def test_dump_documents_is_libyamls_stream(docs: list[Any]) -> None:
    """Fast and fallback documents joined give what libyaml writes for the whole stream."""
    assert dump_documents(docs) == _libyaml_dump([_kubernetes_order(d) for d in docs])
