"""The secret formats (`RULES`, one `Rule` each, with examples it must and must not match), how a
string, a dict or a whole Kubernetes object is tested against them (`find`, `in_object`), and
what makes a value under a credential-named key a literal secret rather than a reference.

Pure functions over plain data: nothing here imports the rest of fleetgen, so the workspace
inventory (base files), ``validate --render`` (rendered objects) and the spec's scan
(`fleetgen.inputs.scan`) all test strings the same way.

The table is data: secrets.toml, next to this module, read once when this module is first
imported (the spec classes import it through `fleetgen.rules.policy`); a pattern is compiled
the first time a rule tries it. The file is kept by hand rather than generated from an upstream
rule file (a secret scanner's): a build has no network access to fetch one and nothing pinned to
check it against; the rules are tuned to what fleetgen reads (keys and values of specs and
Kubernetes objects, references such as ``${VAR}`` that must pass, needles that keep the scan
cheap), where a scanner's generic rules would flag names and digests; and each rule's positive
and negative examples are its tests, which a generated table would not carry.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any


@functools.cache
def _re(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled, on first use: importing the table compiles none of its ~70."""
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
_AWS_KEY = r"(^|_)aws(_|$).*(secret|key)|^secret_?access_?key$"


@functools.lru_cache(maxsize=4096)  # a fleet has few distinct keys, each tested by several rules
def _fold(key: str) -> str:
    """``key`` lowercased, camelCase humps and '-', '.', '/', ' ' turned into '_'."""
    return re.sub(r"[-./ ]", "_", _re(_CAMEL).sub("_", key)).lower()


@functools.lru_cache(maxsize=4096)
def credential_key(key: str) -> bool:
    """True when ``key`` names a credential value: DB_PASSWORD, clientSecret, api-key, --token,
    prod_password, dbPassword, PGPASSWORD, token2."""
    return bool(_re(_CREDENTIAL_KEY).search(_fold(key.lstrip("-"))))


@functools.lru_cache(maxsize=4096)
def reference_key(key: str) -> bool:
    """True when ``key`` names where a credential is kept: existingSecret, passwordSecretKey."""
    return bool(_re(_REFERENCE_KEY).search(_fold(key.lstrip("-"))))


@functools.lru_cache(maxsize=4096)
def holds_names(key: str) -> bool:
    """True when a dict under ``key`` says where a credential is kept, so that its fields hold
    names: ``passwordSecret: {secretName: db, password: db-password}`` (Strimzi),
    ``secretKeyRef: {name: db, key: password}``, ``existingSecret: {...}``."""
    return reference_key(key) or _fold(key.lstrip("-")).endswith("ref")


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
_PLACEHOLDER = r"\$\{[^}]*\}|\$\([^)]*\)|\{\{[^}]*\}\}|\{[^{}]*\}"
_FLAGS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "none", "~"})
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


def _is_reference(value: str) -> bool:
    return _re(_REFERENCE).fullmatch(value) is not None


def is_literal_secret(value: str) -> bool:
    """True for a literal that a credential-named key must not hold, whatever its entropy
    (``changeme`` included): anything but an empty value, a flag or null word (true, false,
    yes, no, on, off, null, none, ~) or a reference (`_REFERENCE`)."""
    value = value.strip()
    return not (not value or value.lower() in _FLAGS or _is_reference(value))


def is_name(value: str) -> bool:
    """True for a Kubernetes object name (DNS-1123 subdomain): what a reference key holds."""
    return len(value) <= 253 and bool(_re(_NAME).fullmatch(value))


# -- the rules ------------------------------------------------------------------------------------

Matcher = Callable[[str, Any], str | None]  # (key, value) -> the secret text found, or None


@dataclass(frozen=True, slots=True)
class Rule:
    """One secret format: ``match(key, value)`` returns the secret text it found, or None.

    ``positive`` and ``negative`` are (key, value) examples the rule must and must not match
    (secrets.toml's examples, a value written in parts joined). A rule reads strings unless
    ``strings`` is False; one with ``mappings`` reads dicts that have one of its ``keys`` (any
    other value it never matches). ``needles``: strings one of which a string must contain for
    the rule to be tried on it (a cheap test before the pattern); empty: always tried.
    """

    id: str
    description: str
    match: Matcher
    positive: tuple[str, Any]
    negative: tuple[str, Any]
    mappings: bool = False
    needles: tuple[str, ...] = ()
    strings: bool = True
    keys: tuple[str, ...] = ()


def _content(pattern: str, group: int = 0) -> Matcher:
    """A rule on the text of a string value, whatever its key."""

    def match(key: str, value: Any) -> str | None:
        if not isinstance(value, str):
            return None
        found = _re(pattern).search(value)
        return found.group(group) if found else None

    return match


def _password_in_url(key: str, value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    for found in re.finditer(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@", value):
        if _re(_PLACEHOLDER).sub("", found.group(1)):
            return found.group(1)
    return None


@functools.lru_cache(maxsize=4096)
def _aws_key(key: str) -> bool:
    return bool(_re(_AWS_KEY).search(_fold(key)))


def _aws_secret_key(key: str, value: Any) -> str | None:
    if not isinstance(value, str) or not _aws_key(key):
        return None
    return value if re.fullmatch(r"[A-Za-z0-9/+=]{40}", value.strip()) else None


def _secret_flag(key: str, value: Any) -> str | None:
    """``--token=VALUE`` in one string, or ``VALUE`` right after a ``--token`` list item."""
    if not isinstance(value, str) or not (value.startswith("-") or key.startswith("-")):
        return None
    flag = _re(_SECRET_FLAG).match(value)
    if flag and flag.group(2) and is_literal_secret(flag.group(2)):
        return flag.group(2)
    if _re(_SECRET_FLAG).match(key) and not value.startswith("-") and is_literal_secret(value):
        return value
    return None


def _credential_value(key: str, value: Any) -> str | None:
    """A literal under a credential-named key; under a reference key, anything but a name."""
    if not isinstance(value, str) or not credential_key(key):
        return None
    if reference_key(key) and (is_name(value) or not is_literal_secret(value)):
        return None
    return value if is_literal_secret(value) else None


def _credential_assignment(key: str, value: Any) -> str | None:
    """A literal assigned to a credential-named key on a line of a configuration text held in
    a string (a config file in a ConfigMap, an application.properties, a .env)."""
    if not isinstance(value, str) or not _re(_CREDENTIAL_WORD).search(value):
        return None
    for found in _re(_ASSIGNMENT).finditer(value):
        name = found.group(1)
        literal = found.group(2) if found.group(2) is not None else found.group(3)
        if literal is None:
            literal = found.group(4)
            if _re(_BLOCK_INDICATOR).fullmatch(literal):
                continue
        reference = reference_key(name) and is_name(literal)
        if credential_key(name) and not reference and is_literal_secret(literal):
            return literal
    return None


def _docker_config(key: str, value: Any) -> str | None:
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
                    if isinstance(secret, str) and secret and not _is_reference(secret):
                        return secret
    return None


def _kubeconfig(key: str, value: Any) -> str | None:
    """Kubeconfig user credentials: YAML text, or a dict with ``users[].user.token`` etc."""
    if isinstance(value, str):
        if re.search(r"(?m)^\s*users\s*:", value):
            for found in _re(_BLOCK_SECRET).finditer(value):
                if not _is_reference(found.group(1).strip().strip("\"'")):
                    return found.group(1).strip()
        return None
    users = value.get("users") if isinstance(value, Mapping) else None
    for entry in users if isinstance(users, list) else []:
        user = entry.get("user") if isinstance(entry, Mapping) else None
        if isinstance(user, Mapping):
            for field in ("token", "password", "client-key-data", "client-key"):
                secret = user.get(field)
                if isinstance(secret, str) and secret and not _is_reference(secret):
                    return secret
    return None


def _gcp_service_account(key: str, value: Any) -> str | None:
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


def _azure_sas(key: str, value: Any) -> str | None:
    """An Azure shared access signature: a query with a service version and a signature."""
    if not isinstance(value, str) or not _re(_SAS_VERSION).search(value):
        return None
    found = _re(_SAS_SIGNATURE).search(value)
    return found.group(1) if found else None


def _secret_data(key: str, value: Any) -> str | None:
    """A Kubernetes Secret (``kind: Secret``, a patch of one) whose data or stringData holds a
    value no other rule finds as written (those it reports itself): the first such value."""
    if not isinstance(value, Mapping) or value.get("kind") != "Secret":
        return None
    for _, entry_key, written, text in secret_values(value):
        if find(entry_key, written) is None:
            return text
    return None


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
    return bool(text.strip()) and not _is_reference(text.strip())


def _decoded(text: str) -> str:
    """A Secret's ``data`` value as text: base64-decoded, or as written if it is not base64 of
    UTF-8 text."""
    try:
        return base64.b64decode(text.strip(), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return text


PLAIN_SECRET = "plain-secret"
# The rules secrets.toml gives no pattern, by id: formats a regular expression cannot say.
MATCHERS: Mapping[str, Matcher] = {
    PLAIN_SECRET: _secret_data,
    "gcp-service-account-key": _gcp_service_account,
    "aws-secret-access-key": _aws_secret_key,
    "azure-sas-token": _azure_sas,
    "docker-config": _docker_config,
    "kubeconfig-credentials": _kubeconfig,
    "password-in-url": _password_in_url,
    "secret-cli-flag": _secret_flag,
    "credential-assignment": _credential_assignment,
    "credential-key": _credential_value,
}


def _rule(entry: dict[str, Any]) -> Rule:
    """The `Rule` of a ``[[rule]]`` of secrets.toml (its header lists the fields)."""
    pattern = entry.get("pattern")
    return Rule(
        entry["id"],
        entry["description"],
        _content(pattern, entry.get("group", 0)) if pattern else MATCHERS[entry["id"]],
        _example(entry["positive"]),
        _example(entry["negative"]),
        mappings=entry.get("mappings", False),
        needles=tuple(entry.get("needles", ())),
        strings=entry.get("strings", True),
        keys=tuple(entry.get("keys", ())),
    )


def _example(pair: list[Any]) -> tuple[str, Any]:
    """An example's (key, value), a value written in parts joined."""
    key, value = pair
    return key, "".join(value) if isinstance(value, list) else value


def _table() -> tuple[Rule, ...]:
    """The rules of secrets.toml, in its order."""
    text = resources.files("fleetgen.rules").joinpath("secrets.toml").read_text("utf-8")
    return tuple(_rule(entry) for entry in tomllib.loads(text)["rule"])


RULES = _table()
BY_ID: Mapping[str, Rule] = {rule.id: rule for rule in RULES}


# -- finding --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finding:
    """A rule that matched, and the secret text it found (never printed: see ``hint``)."""

    rule: Rule
    secret: str


_MAPPING_RULES = tuple(rule for rule in RULES if rule.mappings)
_MAPPING_KEYS = frozenset(key for rule in _MAPPING_RULES for key in rule.keys)
# For strings: the rules always tried, every needle, and the rules (by index) each one opens.
_UNGATED = frozenset(i for i, rule in enumerate(RULES) if rule.strings and not rule.needles)
_NEEDLES = tuple(sorted({needle for rule in RULES for needle in rule.needles}))
_ANY_NEEDLE = "|".join(re.escape(needle) for needle in _NEEDLES)
_OPENS = {
    needle: frozenset(i for i, rule in enumerate(RULES) if needle in rule.needles)
    for needle in _NEEDLES
}


def find(key: str, value: Any) -> Finding | None:
    """The first rule of ``RULES`` that matches ``value`` held under ``key``."""
    if type(value) is str and type(key) is str:
        return _find_text(key, value)
    if isinstance(value, Mapping):
        return _find_mapping(key, value) if value else None  # nothing to find in an empty dict
    return None


@functools.lru_cache(maxsize=1 << 16)
def _find_text(key: str, value: str) -> Finding | None:
    """`find` for a string: the rules are pure functions of (key, value), and a fleet repeats
    the same few strings under the same keys many times (names, labels, paths). A rule is tried
    only on a string that holds one of its needles, in table order."""
    tried = _UNGATED
    if _re(_ANY_NEEDLE).search(value):  # most strings (names, labels) hold none
        tried = tried.union(*[_OPENS[needle] for needle in _NEEDLES if needle in value])
    for index in sorted(tried):
        rule = RULES[index]
        secret = rule.match(key, value)
        if secret:
            return Finding(rule, secret)
    return None


def _find_mapping(key: str, value: Mapping[str, Any]) -> Finding | None:
    if value.keys().isdisjoint(_MAPPING_KEYS):  # most dicts: labels, config, values
        return None
    for rule in _MAPPING_RULES:
        if value.keys().isdisjoint(rule.keys):
            continue
        secret = rule.match(key, value)
        if secret:
            return Finding(rule, secret)
    return None


def hint(secret: str) -> str:
    """What a message shows of a secret: its length, never a character of it."""
    return f"<{len(secret)} characters>"


# -- Kubernetes objects ---------------------------------------------------------------------------

Path = tuple[str | int, ...]  # keys and list indexes from the top of an object


@dataclass(frozen=True, slots=True)
class Found:
    """A finding inside an object, and where: ``path`` from the object's top."""

    finding: Finding
    path: Path


def in_secret(key: str, text: str) -> Finding:
    """What a value of a Secret's data is: the format a rule finds in it, else `PLAIN_SECRET`
    (which a credential-named key adds nothing to: every value of a Secret is one)."""
    found = find(key, text)
    if found is None or found.rule.id == "credential-key":
        return Finding(BY_ID[PLAIN_SECRET], text)
    return found


def field_path(path: Path) -> str:
    """``path`` slash-separated (``data/password``), a key that is itself a secret masked."""
    shown = []
    for part in path:
        found = find("", part) if isinstance(part, str) else None
        shown.append(hint(found.secret) if found else str(part))
    return "/".join(shown)


# Per API group, keys whose values are key names of a Secret, not credentials: an
# ExternalSecret's ``spec.data[].secretKey`` names the key of the Secret it makes.
_NAME_KEYS = {"external-secrets.io": frozenset({"secretKey"})}


def in_object(doc: Any) -> list[Found]:
    """What ``RULES`` find in a Kubernetes object (or any YAML document): every string, dict
    key and value, list item and number under a credential-named key, tested under the key it
    sits under (see `walk`). A Secret's ``data`` and ``stringData`` values are reported one by
    one: by the format a value has (``data`` decoded), else as `PLAIN_SECRET`. A CRD (a schema)
    and a SealedSecret's ``encryptedData`` hold no values."""
    if not isinstance(doc, Mapping):
        return walk(doc)
    found: list[Found] = []
    api = doc.get("apiVersion")
    group = api.rpartition("/")[0] if isinstance(api, str) else ""
    names = _NAME_KEYS.get(group, frozenset())
    if doc.get("kind") == "CustomResourceDefinition":
        return []  # a schema: descriptions and types, no values
    if doc.get("kind") == "Secret" and group == "":
        for section, key, _, text in secret_values(doc):
            found.append(Found(in_secret(key, text), (section, key)))
        doc = {key: value for key, value in doc.items() if key not in ("data", "stringData")}
    elif doc.get("kind") == "SealedSecret" and group == "bitnami.com":
        spec = doc.get("spec")
        if isinstance(spec, Mapping):  # encryptedData: encrypted, whatever its keys say
            doc = {**doc, "spec": {k: v for k, v in spec.items() if k != "encryptedData"}}
    found += walk(doc, names=names)
    return found


def walk(
    value: Any, path: Path = (), key: str = "", names: frozenset[str] = frozenset()
) -> list[Found]:
    """What ``RULES`` find in plain data (dicts, lists, strings, numbers), as `Found` with paths.

    ``key`` is what a node sits under, as the spec's walk (`fleetgen.inputs.scan.nodes`) has it: the
    dict key, the ``name`` of a ``{name: X, value: Y}`` pair for its value, the flag before a list
    item (``["--token", VALUE]``), the key of the enclosing dict for a list item. A dict key is
    tested on its own; a number is tested only under a credential-named key. ``names``: keys
    whose values are names (`_NAME_KEYS`).
    """
    found: list[Found] = []
    _walk(value, path, key, names, found)
    return found


def _walk(value: Any, path: Path, key: str, names: frozenset[str], found: list[Found]) -> None:
    """`walk` into ``found``. YAML gives exact builtin types: tested by ``type`` first (an
    ``isinstance`` against ``Mapping`` is an ABC check, and a base has tens of thousands of
    nodes), then as any mapping or sequence."""
    kind = type(value)
    if kind is str:
        finding = _find_text(key, value)
        if finding:
            found.append(Found(finding, path))
    elif kind is dict or isinstance(value, Mapping):
        if value and not value.keys().isdisjoint(_MAPPING_KEYS):
            finding = _find_mapping(key, value)
            if finding:
                found.append(Found(finding, path))
        holder = holds_names(key) if key else False
        pair_name = value.get("name")
        if type(pair_name) is not str:
            pair_name = None
        for item_key, item in value.items():
            if type(item_key) is str:
                shown: str | int = item_key
                finding = _find_text("", item_key)
                if finding:
                    found.append(Found(finding, (*path, item_key)))
            else:
                shown = item_key if isinstance(item_key, int) else str(item_key)
            if holder and type(item) is str and is_name(item):
                inner = ""
            elif item_key == "value" and pair_name:
                inner = pair_name
            else:
                inner = str(item_key)
            _walk(item, (*path, shown), "" if inner in names else inner, names, found)
    elif kind is list or kind is tuple or isinstance(value, list | tuple):
        previous = key
        for index, item in enumerate(value):
            _walk(item, (*path, index), previous, names, found)
            flag = type(item) is str and item.startswith("-") and "=" not in item
            previous = item if flag else key
    elif (kind is int or kind is float) and credential_key(key):
        finding = _find_text(key, str(value))
        if finding:
            found.append(Found(finding, path))
