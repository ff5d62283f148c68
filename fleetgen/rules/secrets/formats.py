"""The secret formats that a regular expression cannot say, one matcher each (``(key, value)``
to the secret text found, or None), which secrets.toml's rules without a pattern are matched
by; and the values of a Kubernetes Secret's data (`secret_values`)."""

from __future__ import annotations

import base64
import binascii
import functools
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from fleetgen.rules.secrets.credentials import (
    compiled,
    credential_key,
    fold,
    is_literal_secret,
    is_name,
    is_reference,
    reference_key,
)

_PLACEHOLDER = r"\$\{[^}]*\}|\$\([^)]*\)|\{\{[^}]*\}\}|\{[^{}]*\}"
_SECRET_FLAG = (
    r"(?i)^--?(token|password|passwd|client-secret|secret|api-key|access-key|secret-key|"
    r"private-key|auth-token|bearer-token|client-key)(?:=(.*))?$"
)
_BLOCK_SECRET = r"(?im)^\s*-?\s*(?:token|password|client-key-data|client-key)\s*:[ \t]*(\S.*)$"
# One `KEY: VALUE` or `KEY = VALUE` line of a configuration text (YAML, INI, .properties, .env,
# pretty-printed JSON, HCL), its key and value without quotes or a trailing comma.
_ASSIGNMENT = (
    r"""(?m)^[ \t]*(?:export[ \t]+)?["']?([A-Za-z_][\w.-]*)["']?[ \t]*[:=][ \t]*"""
    r"""(?:"([^"\n]*)"|'([^'\n]*)'|([^\s,#;][^\n]*?))[ \t]*,?[ \t]*$"""
)
_BLOCK_INDICATOR = r"[|>][-+0-9]*|!\S*.*|[\[{&*].*"  # YAML: the value is elsewhere
_CREDENTIAL_WORD = r"(?i)pass|pwd|token|secret|key|credential"
_AWS_KEY = r"(^|_)aws(_|$).*(secret|key)|^secret_?access_?key$"


def password_in_url(key: str, value: Any) -> str | None:
    """The password of ``scheme://user:password@host`` (not a placeholder: ``${DB_PASSWORD}``)."""
    if not isinstance(value, str):
        return None
    for found in re.finditer(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@", value):
        if compiled(_PLACEHOLDER).sub("", found.group(1)):
            return found.group(1)
    return None


@functools.lru_cache(maxsize=4096)
def _aws_key(key: str) -> bool:
    return bool(compiled(_AWS_KEY).search(fold(key)))


def aws_secret_key(key: str, value: Any) -> str | None:
    """40 characters of base64 under a key that names an AWS secret (`_AWS_KEY`)."""
    if not isinstance(value, str) or not _aws_key(key):
        return None
    return value if re.fullmatch(r"[A-Za-z0-9/+=]{40}", value.strip()) else None


def secret_flag(key: str, value: Any) -> str | None:
    """``--token=VALUE`` in one string, or ``VALUE`` right after a ``--token`` list item."""
    if not isinstance(value, str) or not (value.startswith("-") or key.startswith("-")):
        return None
    flag = compiled(_SECRET_FLAG).match(value)
    if flag and flag.group(2) and is_literal_secret(flag.group(2)):
        return flag.group(2)
    if compiled(_SECRET_FLAG).match(key) and not value.startswith("-") and is_literal_secret(value):
        return value
    return None


def credential_value(key: str, value: Any) -> str | None:
    """A literal under a credential-named key; under a reference key, anything but a name."""
    if not isinstance(value, str) or not credential_key(key):
        return None
    if reference_key(key) and (is_name(value) or not is_literal_secret(value)):
        return None
    return value if is_literal_secret(value) else None


def credential_assignment(key: str, value: Any) -> str | None:
    """A literal assigned to a credential-named key on a line of a configuration text held in
    a string (a config file in a ConfigMap, an application.properties, a .env)."""
    if not isinstance(value, str) or not compiled(_CREDENTIAL_WORD).search(value):
        return None
    for found in compiled(_ASSIGNMENT).finditer(value):
        name = found.group(1)
        literal = found.group(2) if found.group(2) is not None else found.group(3)
        if literal is None:
            literal = found.group(4)
            if compiled(_BLOCK_INDICATOR).fullmatch(literal):
                continue
        reference = reference_key(name) and is_name(literal)
        if credential_key(name) and not reference and is_literal_secret(literal):
            return literal
    return None


def docker_config(key: str, value: Any) -> str | None:
    """A Docker config (``{"auths": {REGISTRY: {"auth"|"password": ...}}}``), dict or JSON."""
    if isinstance(value, str) and '"auths"' in value:
        try:
            value = json.loads(value)
        except ValueError:
            found = re.search(r'(?s)"auths"\s*:\s*\{.*"(?:auth|password)"\s*:\s*"([^"]+)"', value)
            return found.group(1) if found else None
    auths = value.get("auths") if isinstance(value, Mapping) else None
    if isinstance(auths, Mapping):
        for entry in auths.values():
            if isinstance(entry, Mapping):
                for field in ("auth", "password", "identitytoken"):
                    secret = entry.get(field)
                    if isinstance(secret, str) and secret and not is_reference(secret):
                        return secret
    return None


def kubeconfig(key: str, value: Any) -> str | None:
    """Kubeconfig user credentials: YAML text, or a dict with ``users[].user.token`` etc."""
    if isinstance(value, str):
        if re.search(r"(?m)^\s*users\s*:", value):
            for found in compiled(_BLOCK_SECRET).finditer(value):
                if not is_reference(found.group(1).strip().strip("\"'")):
                    return found.group(1).strip()
        return None
    users = value.get("users") if isinstance(value, Mapping) else None
    for entry in users if isinstance(users, list) else []:
        user = entry.get("user") if isinstance(entry, Mapping) else None
        if isinstance(user, Mapping):
            for field in ("token", "password", "client-key-data", "client-key"):
                secret = user.get(field)
                if isinstance(secret, str) and secret and not is_reference(secret):
                    return secret
    return None


def gcp_service_account(key: str, value: Any) -> str | None:
    """A Google Cloud service account key: the JSON file (text) or its dict, with a private key
    (Google documents the file: ``"type": "service_account"``, ``"private_key": "-----BEGIN
    PRIVATE KEY-----\\n…"``)."""
    if isinstance(value, str):
        if not re.search(r'"type"\s*:\s*"service_account"', value):
            return None
        found = re.search(r'"private_key"\s*:\s*"(-----BEGIN[^"]+)"', value)
        return found.group(1) if found else None
    if isinstance(value, Mapping) and value.get("type") == "service_account":
        secret = value.get("private_key")
        return secret if isinstance(secret, str) and "PRIVATE KEY" in secret else None
    return None


_SAS_VERSION = r"[?&]sv=[0-9]{4}-[0-9]{2}-[0-9]{2}"
_SAS_SIGNATURE = r"[?&]sig=([A-Za-z0-9%+/]{30,}(?:%3[Dd]|=){0,2})"


def azure_sas(key: str, value: Any) -> str | None:
    """An Azure shared access signature: a query with a service version and a signature."""
    if not isinstance(value, str) or not compiled(_SAS_VERSION).search(value):
        return None
    found = compiled(_SAS_SIGNATURE).search(value)
    return found.group(1) if found else None


def secret_values(doc: Mapping[str, Any]) -> Iterator[tuple[str, str, str, str]]:
    """(section, key, value as written, value as text) of every value of a Secret's ``data``
    (base64-decoded when it decodes to UTF-8 text) and ``stringData`` that holds something
    (`holds_material`)."""
    for section in ("data", "stringData"):
        entries = doc.get(section)
        for entry_key, entry in entries.items() if isinstance(entries, Mapping) else ():
            if entry is None or isinstance(entry, bool):
                continue
            written = str(entry)
            text = _decoded(written) if section == "data" else written
            if holds_material(text):
                yield section, str(entry_key), written, text


def holds_material(text: str) -> bool:
    """Whether a value of a Secret holds something: not empty, not a reference (``${VAR}``
    substituted later, a value encrypted by SOPS)."""
    return bool(text.strip()) and not is_reference(text.strip())


def _decoded(text: str) -> str:
    """A Secret's ``data`` value as text: base64-decoded, or as written if it is not base64 of
    UTF-8 text."""
    try:
        return base64.b64decode(text.strip(), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return text
