"""Refuse secret material anywhere in the spec: credentials are references, never values."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from fleetgen.model import ExecAuth, Layer, Spec

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


def scan_for_secrets(spec: Spec) -> Iterator[tuple[Spec, str]]:
    """(the object holding it, message) for every value that looks like secret material."""
    yield from _walk(spec, spec, "fleet")


def _walk(value: Any, owner: Spec, path: str) -> Iterator[tuple[Spec, str]]:
    if isinstance(value, BaseModel):
        assert isinstance(value, Spec)
        for name in type(value).model_fields:
            yield from _walk(getattr(value, name), value, f"{path}.{name}")
        if isinstance(value, Layer):
            yield from _credential_keys(value.config, value, f"{path}.config", nested=True)
        if isinstance(value, ExecAuth):
            yield from _credential_keys(value.env, value, f"{path}.env", nested=False)
    elif isinstance(value, str):
        found = _content(value)
        if found:
            yield owner, f"{path} holds {found}; {_HINT}"
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(key, owner, f"{path} (key)")
            yield from _walk(item, owner, f"{path}[{key}]")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _walk(item, owner, f"{path}[{_label(item, index)}]")


def _label(item: Any, index: int) -> str:
    name = getattr(item, "name", None)
    return name if isinstance(name, str) else str(index)


def _content(text: str) -> str | None:
    if len(text) < 16:
        return None
    for what, pattern in _CONTENT:
        if pattern.search(text):
            return what
    return None


def _credential_keys(values: dict[str, Any], owner: Spec, path: str,
                     nested: bool) -> Iterator[tuple[Spec, str]]:
    items = ((f"{path}[{outer}][{key}]", key, value)
             for outer, inner in values.items() for key, value in inner.items()) if nested else (
        (f"{path}[{key}]", key, value) for key, value in values.items())
    for where, key, value in items:
        if _CREDENTIAL_KEY.search(key) and value and not _REFERENCE_VALUE.match(value):
            yield owner, (f"{where}: key {key!r} looks like a credential with a literal value; "
                          f"{_HINT}")
