"""Checks over every string of the spec: no secret material, nothing YAML cannot carry."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from fleetgen.model import ExecAuth, Layer, Spec
from fleetgen.yamlscalar import uncarriable

_CONTENT = [
    ("a PEM private key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")),
    ("a JSON Web Token", re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+")),
    ("a GitHub token", re.compile(r"\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("a GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("an AWS access key id", re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("a Stripe secret key", re.compile(r"\b[rs]k_live_[0-9A-Za-z]{16,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("a password in a URL", re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@")),
    ("a kubeconfig with user credentials",
     re.compile(r"(?s)^(?=.*\busers:).*^\s*-?\s*(token|password|client-key-data|client-key)"
                r":\s*\S", re.MULTILINE)),
]
_CREDENTIAL_KEY = re.compile(
    r"(?i)(^|[_.-])(password|passwd|secret|token|api[_-]?key|private[_-]?key|client[_-]?secret)$"
)
_REFERENCE_VALUE = re.compile(r"^(/|\$\{|\{\{|[a-z]+://)")
_HINT = ("fleetgen takes references only: keep the value in a secret store and use "
         "AppSecret or ExternalSecretRef")


def problems(spec: Spec) -> Iterator[tuple[Spec, str]]:
    """(the object holding it, message) for every string fleetgen must refuse."""
    for owner, path, node in nodes(spec, "fleet"):
        if isinstance(node, str):
            found = uncarriable(node)
            if found:
                yield owner, f"{path}: {found}"
            found = _secret(node)
            if found:
                yield owner, f"{path} holds {found}; {_HINT}"
        else:
            yield from _credential_keys(node, path)


def nodes(value: Any, path: str, owner: Spec | None = None) -> Iterator[tuple[Spec, str, Any]]:
    """(owning model, path, node) for every model, string and dict key inside ``value``."""
    if isinstance(value, Spec):
        yield value, path, value
        for name in type(value).model_fields:
            yield from nodes(getattr(value, name), f"{path}.{name}", value)
    elif isinstance(value, str):
        assert owner is not None
        yield owner, path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from nodes(key, f"{path} (key {key!r})", owner)
            yield from nodes(item, f"{path}[{key!r}]", owner)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from nodes(item, f"{path}[{_label(item, index)}]", owner)


def _label(item: Any, index: int) -> str:
    name = getattr(item, "name", None)
    return repr(name) if isinstance(name, str) else str(index)


def _secret(text: str) -> str | None:
    if len(text) < 16:
        return None
    for what, pattern in _CONTENT:
        if pattern.search(text):
            return what
    return None


def _credential_keys(model: Spec, path: str) -> Iterator[tuple[Spec, str]]:
    """Config and exec-env entries whose key names a credential and whose value is a literal."""
    entries: list[tuple[str, str, str]] = []
    if isinstance(model, Layer):
        entries = [(f"{path}.config[{cm!r}][{key!r}]", key, text)
                   for cm, values in model.config.items() for key, text in values.items()]
    elif isinstance(model, ExecAuth):
        entries = [(f"{path}.env[{key!r}]", key, text) for key, text in model.env.items()]
    for where, key, text in entries:
        if _CREDENTIAL_KEY.search(key) and text and not _REFERENCE_VALUE.match(text):
            yield model, (f"{where}: key {key!r} looks like a credential with a literal value; "
                          f"{_HINT}")
