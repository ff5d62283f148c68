"""Which keys name a credential (`credential_key`) or where one is kept (`reference_key`), and
which values are literal secrets rather than references (`is_literal_secret`); `compiled`, the
package's cache of compiled patterns."""

from __future__ import annotations

import functools
import re
from typing import Any


@functools.cache
def compiled(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled, on first use: loading the table compiles none of its patterns."""
    return re.compile(pattern)


# -- keys -----------------------------------------------------------------------------------------

# A key names a credential value when, folded (camelCase humps, '-', '.', '/', ' ' turned into
# '_', lowercased: dbPassword -> db_password, PGPASSWORD -> pgpassword), it ends in one of these
# words, after any prefix (prod_password, non_prod_password, pgpassword), and followed by nothing
# but qualifiers (password_prod, token2, api_key_old). PASSWORD_FILE, TOKEN_TTL, secretName end
# in another word: they do not hold the credential.
_ANY_PREFIX = (
    r"password|passwd|passphrase|token|secret|api_?key|access_?key|secret_?key|private_?key|"
    r"client_?secret|secret_?key_?base|encryption_?key|signing_?key|master_?key"
)
_WORD_PREFIX = r"pwd|pass|credentials?"  # only as a word of their own: not bypass, not cpwd
_QUALIFIERS = (
    r"prod|production|staging|stage|dev|development|test|testing|qa|uat|old|new|current|next|"
    r"previous|prev|primary|secondary|backup|value|plain|plaintext|raw|base64|b64|literal"
)
_CREDENTIAL_KEY = (
    rf"(?:(?:{_ANY_PREFIX})|(?:^|_)(?:{_WORD_PREFIX}))(?:_(?:{_QUALIFIERS})|_?[0-9]+)*$"
)
# Keys that name where a credential is kept (a Secret's name, a key of it), though they end in a
# credential word: existingSecret, passwordSecret, passwordSecretKey, tlsSecret, imagePullSecret.
# Under them a Kubernetes object name passes (anything else is tested as under a credential key).
# Keys ending in ...Name, ...Ref, ...SecretRef (secretName, tokenRef) name no credential at all.
_REFERENCE_KEY = (
    r"(?:^|_)existing(?:_|$)|"
    r"(?:^|_)(?:tls|ssl|ca|cert|certificate|pull|kube|k8s|kubernetes)_secret$|"
    r"(?:password|passwd|passphrase|token|api_?key|private_?key|credentials?)_secret(?:_|$)"
)
_NAME = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_CAMEL = r"(?<=[a-z0-9])(?=[A-Z])"


@functools.lru_cache(maxsize=4096)  # a fleet has few distinct keys, each tested by several rules
def fold(key: str) -> str:
    """``key`` lowercased, camelCase humps and '-', '.', '/', ' ' turned into '_'."""
    return re.sub(r"[-./ ]", "_", compiled(_CAMEL).sub("_", key)).lower()


@functools.lru_cache(maxsize=4096)
def credential_key(key: str) -> bool:
    """True when ``key`` names a credential value: DB_PASSWORD, clientSecret, api-key, --token,
    prod_password, dbPassword, PGPASSWORD, token2."""
    return bool(compiled(_CREDENTIAL_KEY).search(fold(key.lstrip("-"))))


@functools.lru_cache(maxsize=4096)
def reference_key(key: str) -> bool:
    """True when ``key`` names where a credential is kept: existingSecret, passwordSecretKey."""
    return bool(compiled(_REFERENCE_KEY).search(fold(key.lstrip("-"))))


@functools.lru_cache(maxsize=4096)
def holds_names(key: str) -> bool:
    """True when a dict under ``key`` says where a credential is kept, so that its fields hold
    names: ``passwordSecret: {secretName: db, password: db-password}`` (Strimzi),
    ``secretKeyRef: {name: db, key: password}``, ``existingSecret: {...}``."""
    return reference_key(key) or fold(key.lstrip("-")).endswith("ref")


def inner_key(key: str, item_key: Any, item: Any, pair_name: str | None) -> str:
    """The key an ``item`` of a dict held under ``key`` is tested under: its own, the ``name``
    of a ``{name: X, value: Y}`` pair for Y, none for a name in a dict that `holds_names`."""
    if isinstance(item, str) and holds_names(key) and is_name(item):
        return ""
    return pair_name if item_key == "value" and pair_name else str(item_key)


# -- values ---------------------------------------------------------------------------------------

# Values that name where a secret lives instead of holding it (matched as the whole value).
_REFERENCE = "|".join(
    f"(?:{pattern})"
    for pattern in (
        r"\$\{[A-Za-z_][\w.-]*\}",  # ${DB_PASSWORD}
        r"\$\([A-Za-z_]\w*\)",  # $(DB_PASSWORD)
        r"\{\{[^{}]*\}\}",  # {{ .password }}
        r"\$__(?:file|env|vault)\{[^{}]*\}",  # Grafana's $__file{/etc/secrets/x}
        r"\$[A-Za-z_][\w.-]*(?::[\w.-]+)?",  # Argo CD's $oidc.clientSecret, $secret:key
        r"arn:aws[\w-]*:[\w-]+:[\w-]*:[0-9]{0,12}:\S+",  # arn:aws:iam::123456789012:role/x
        r"[a-z][\w+.-]*:[\w.{}-]*/[\w./{}-]*(#[A-Za-z_][\w.-]*)?",  # vault:secret/data/x#key
        r"[\w./{}-]+#[A-Za-z_][\w.-]*",  # apps/x/{env}#password
        r"[\w./-]*\{(cluster|env)\}[\w./{}-]*",  # clusters/{cluster}
        r"/[\w./-]*",  # /var/run/secrets/token (a file)
        r"[a-z][a-z0-9+.-]*://[^\s@]*",  # a URL without credentials
        r"ENC\[[A-Z0-9_]+,data:[^\]]*\]",  # a value encrypted by SOPS
    )
)
_FLAGS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "none", "~"})


def is_reference(value: str) -> bool:
    """True for a value that names where a secret lives (`_REFERENCE`): ``${DB_PASSWORD}``."""
    return compiled(_REFERENCE).fullmatch(value) is not None


def is_literal_secret(value: str) -> bool:
    """True for a literal that a credential-named key must not hold, whatever its entropy
    (``changeme`` included): anything but an empty value, a flag or null word (true, false,
    yes, no, on, off, null, none, ~) or a reference (`_REFERENCE`)."""
    value = value.strip()
    return not (not value or value.lower() in _FLAGS or is_reference(value))


def is_name(value: str) -> bool:
    """True for a Kubernetes object name (DNS-1123 subdomain): what a reference key holds."""
    return len(value) <= 253 and bool(compiled(_NAME).fullmatch(value))
