"""YAML for generated output: libyaml speed, quoting that every Kubernetes-side reader agrees on.

Generated files are read by PyYAML (YAML 1.1), go-yaml v2 (``sigs.k8s.io/yaml``: kubectl apply,
Argo CD), go-yaml v3 (kyaml: kustomize) and YAML 1.2 tools such as ruamel.yaml. A string that any
of them would resolve to something else (``y``, ``0o17``, ``08``, ``1e3``, ``12:30``...) is
written quoted (`fleetgen.manifests.yamlscalar.needs_quotes` decides). Syntax (indicators, spaces,
``: ``, `` #``...) is left to libyaml's emitter, which quotes whatever a plain scalar cannot carry.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

import yaml

from fleetgen.manifests.k8s import configmap_key_problem
from fleetgen.manifests.yamlfast import BlockWriter
from fleetgen.manifests.yamlscalar import needs_quotes

if not yaml.__with_libyaml__:
    raise ImportError(
        "fleetgen needs PyYAML built with libyaml (yaml.CSafeDumper); reinstall PyYAML from a"
        " wheel, or install libyaml-dev and rebuild it: pip install --force-reinstall PyYAML"
    )

__all__ = [
    "configmap_literal",
    "document_nodes",
    "dump",
    "dump_documents",
    "load_all",
    "load_first",
    "node_line",
]

_STR_TAG = "tag:yaml.org,2002:str"
_NOT_PLAIN = "tag:fleetgen,2024:not-plain"  # any tag but str: makes libyaml quote a str node
_NO_WRAP = 2**31 - 1  # libyaml's width is a C int; math.inf is refused

_TOP_KEYS = ("apiVersion", "kind", "metadata")
_METADATA_KEYS = ("name", "namespace", "labels", "annotations")

# Breaks that a block scalar or single quotes would turn into \n or that YAML 1.1 and 1.2 readers
# disagree on: strings with them go double-quoted, where libyaml escapes them.
_ESCAPED_BREAK = re.compile("[\r\u2028\u2029]")


def _scalar_style(s: str) -> str | None:
    """Literal block for multi-line strings; double quotes where a block would change them."""
    if s.isascii() and s.isprintable():
        return None
    if _ESCAPED_BREAK.search(s):
        return '"'
    if "\n" not in s:
        return None
    # libyaml would write an indentation indicator (|2-) for a leading space or break; keep to
    # the forms every reader handles. Trailing spaces and tabs make libyaml double-quote itself.
    return '"' if s[0] in " \n" else "|"


class _Dumper(yaml.CSafeDumper):
    """CSafeDumper that quotes Go- and YAML 1.2-ambiguous strings and never emits aliases."""

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: tuple[bool, bool]) -> str:
        """Tell libyaml a plain str scalar is not implicit when any reader would misread it."""
        if kind is yaml.ScalarNode and (not implicit[0] or not needs_quotes(value)):
            return _STR_TAG
        tag: str = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        return _NOT_PLAIN if tag == _STR_TAG else tag

    def ignore_aliases(self, data: Any) -> bool:
        """Write repeated objects out again instead of as ``&id001``/``*id001``."""
        return True


def _represent_str(dumper: _Dumper, data: str) -> yaml.ScalarNode:
    return dumper.represent_scalar(_STR_TAG, data, style=_scalar_style(data))


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(tuple, yaml.SafeDumper.represent_list)
_FAST = BlockWriter(needs_quotes)


def _keys_first(mapping: dict[Any, Any], first: tuple[str, ...]) -> dict[Any, Any]:
    """``mapping`` with the keys ``first`` has leading, in that order: itself when they lead
    already (emitters mostly build them so; a copy of every document would cost more)."""
    if _lead(first, tuple(mapping)):
        return mapping
    ordered = {key: mapping[key] for key in first if key in mapping}
    ordered.update(mapping)  # keys already placed keep their position
    return ordered


@functools.lru_cache(maxsize=1024)  # documents come in few key orders
def _lead(first: tuple[str, ...], keys: tuple[Any, ...]) -> bool:
    """Whether those of the keys ``first`` that are among ``keys`` come first, in that order."""
    present = tuple(key for key in first if key in keys)
    return keys[: len(present)] == present


def _kubernetes_order(doc: Any) -> Any:
    """apiVersion, kind, metadata first; in metadata name, namespace, labels, annotations."""
    if not isinstance(doc, dict):
        return doc
    ordered = _keys_first(doc, _TOP_KEYS)
    metadata = ordered.get("metadata")
    if isinstance(metadata, dict):
        metadata_ordered = _keys_first(metadata, _METADATA_KEYS)
        if metadata_ordered is not metadata:
            if ordered is doc:  # never change the caller's document
                ordered = dict(doc)
            ordered["metadata"] = metadata_ordered
    return ordered


def dump_documents(docs: Sequence[Any]) -> str:
    """Serialize documents in block style, separated by ``---`` lines.

    Most documents are written by `fleetgen.manifests.yamlfast` and the rest by libyaml; the text
    is the
    same either way. libyaml puts a scalar document on its ``---`` line and ends a stream whose
    last scalar keeps trailing newlines (``|+``) with ``...``; both are plain YAML.
    """
    texts = []
    for doc in docs:
        text = document_text(doc)
        if text is None:
            return _libyaml_dump([_kubernetes_order(d) for d in docs])
        texts.append(text)
    return "---\n".join(texts)


def document_text(doc: Any) -> str | None:
    """The text of ``doc`` in a stream `dump_documents` writes (between ``---`` lines), or None
    when it is written only with the whole stream (a scalar, or a document that ends open)."""
    ordered = _kubernetes_order(doc)
    text = _FAST.document(ordered)
    return text if text is not None else _libyaml_document(ordered)


def _libyaml_document(doc: Any) -> str | None:
    """libyaml's text for a non-empty dict or list, or None if it ends open (``...``).

    Such a document's text in a stream is the same, behind ``---``; a document that ends open
    or is not a block collection makes libyaml write the separator or end marker differently.
    """
    if not (isinstance(doc, dict | list | tuple) and doc):
        return None
    text = _libyaml_dump([doc])
    return None if text.endswith("\n...\n") else text


def _libyaml_dump(docs: Sequence[Any]) -> str:
    text: str = yaml.dump_all(
        docs,
        Dumper=_Dumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=_NO_WRAP,
    )
    return text


def dump(doc: Any) -> str:
    """Serialize one document."""
    return dump_documents([doc])


def load_all(text: str | bytes) -> list[Any]:
    """Read every document of ``text`` (YAML 1.1, PyYAML's safe types, libyaml's speed): the one
    YAML reader of fleetgen. Raises yaml.YAMLError."""
    return list(yaml.load_all(text, Loader=yaml.CSafeLoader))


def load_first(text: str) -> Any:
    """The first document of ``text``, None when it has none or is not YAML (a ConfigMap
    value that may hold YAML)."""
    try:
        documents = load_all(text)
    except yaml.YAMLError:
        return None
    return documents[0] if documents else None


def load_one(text: str | bytes) -> Any:
    """The one document of ``text`` (`load_all`'s rules); raises yaml.YAMLError, also when
    ``text`` holds several."""
    return yaml.load(text, Loader=yaml.CSafeLoader)


def document_nodes(text: str | bytes) -> list[yaml.Node | None]:
    """The node of every document of ``text``, in `load_all`'s order (to find lines in).
    Raises yaml.YAMLError."""
    return list(yaml.compose_all(text, Loader=yaml.CSafeLoader))


def node_line(node: yaml.Node | None, path: Sequence[str | int]) -> int | None:
    """The 1-based line of what ``path`` (keys and list indexes) reaches from ``node``: of the
    deepest node it reaches when it breaks off; None without a node."""
    if node is None:
        return None
    for part in path:
        found: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            found = next(
                (
                    value
                    for key, value in node.value
                    if isinstance(key, yaml.ScalarNode) and key.value == str(part)
                ),
                None,
            )
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            found = node.value[part] if 0 <= part < len(node.value) else None
        if found is None:
            break
        node = found
    return node.start_mark.line + 1


def configmap_literal(key: str, value: str) -> str:
    """``key=value`` for kustomize ``configMapGenerator.literals`` that yields exactly ``value``.

    kustomize splits at the first ``=`` and strips one pair of matching surrounding quotes
    (``"x"`` or ``'x'``, at least 2 characters); such values get an extra pair of ``"``. Keys
    are refused as `configmap_key_problem` says.
    """
    problem = configmap_key_problem(key)
    if problem:
        raise ValueError(problem)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = f'"{value}"'
    return f"{key}={value}"
