"""The secret formats every string of the spec is tested against (`RULES`, one `Rule` each, with
examples it must and must not match), and what makes a value under a credential-named key a
literal secret rather than a reference or a placeholder word (`is_literal_secret`)."""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# Key names that announce a credential, matched at the end of the key after camelCase, '-', '.',
# '/' and ' ' are folded to '_' and the key is lowercased: DB_PASSWORD, clientSecret, api-key.
_CREDENTIAL_KEY = re.compile(
    r"(^|_)(password|passwd|pwd|secret|token|api_?key|apikey|access_?key|secret_?key|"
    r"private_?key|client_?secret|credentials?|secret_?key_?base)$"
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_AWS_KEY = re.compile(r"(^|_)aws(_|$).*(secret|key)|^secret_?access_?key$")

# Values that name where a secret lives instead of holding it (matched as the whole value).
_REFERENCES = [
    re.compile(pattern)
    for pattern in (
        r"\$\{[A-Za-z_][\w.-]*\}",  # ${DB_PASSWORD}
        r"\$\([A-Za-z_]\w*\)",  # $(DB_PASSWORD)
        r"\{\{[^{}]*\}\}",  # {{ .password }}
        r"arn:aws[\w-]*:[\w-]+:[\w-]*:[0-9]{0,12}:\S+",  # arn:aws:iam::123456789012:role/x
        r"[a-z][\w+.-]*:[\w.{}-]*/[\w./{}-]*(#[A-Za-z_][\w.-]*)?",  # vault:secret/data/x#key
        r"[\w./{}-]+#[A-Za-z_][\w.-]*",  # apps/x/{env}#password
        r"[\w./-]*\{(cluster|env)\}[\w./{}-]*",  # clusters/{cluster}
        r"/[\w./-]*",  # /var/run/secrets/token (a file)
        r"[a-z][a-z0-9+.-]*://[^\s@]*",  # a URL without credentials
    )
]
_PLACEHOLDER = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|\{\{[^}]*\}\}|\{[^{}]*\}")
# A value under a credential key is a low-entropy placeholder word, not a secret, when it is
# letters (with '-', '_', '.' between words) and below this Shannon entropy (bits per character):
# 'changeme', 'password', 'disabled' pass; 'hunter2', 'Xk9#vQ...', 'correcthorsebatterystaple'
# are refused.
WORD_ENTROPY = 3.0
_WORD = re.compile(r"[A-Za-z]+([-_.][A-Za-z]+)*")
_SECRET_FLAG = re.compile(
    r"(?i)^--?(token|password|passwd|client-secret|secret|api-key|access-key|secret-key|"
    r"private-key|auth-token|bearer-token|client-key)(?:=(.*))?$"
)
_BLOCK_SECRET = re.compile(
    r"(?im)^\s*-?\s*(?:token|password|client-key-data|client-key)\s*:[ \t]*(\S.*)$"
)


def _is_reference(value: str) -> bool:
    return any(pattern.fullmatch(value) for pattern in _REFERENCES)


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def is_literal_secret(value: str) -> bool:
    """True for a literal that a credential-named key must not hold (see ``WORD_ENTROPY``)."""
    value = value.strip()
    if not value or _is_reference(value) or value.lower() in ("true", "false", "yes", "no"):
        return False
    return not (_WORD.fullmatch(value) and entropy(value) < WORD_ENTROPY)


def credential_key(key: str) -> bool:
    """True when ``key`` names a credential: DB_PASSWORD, clientSecret, api-key, --token."""
    return bool(_CREDENTIAL_KEY.search(_fold(key.lstrip("-"))))


# -- the rules ------------------------------------------------------------------------------------

Matcher = Callable[[str, Any], str | None]  # (key, value) -> the secret text found, or None


def _content(pattern: str, group: int = 0) -> Matcher:
    """A rule on the text of a string value, whatever its key."""
    compiled = re.compile(pattern)

    def match(key: str, value: Any) -> str | None:
        if not isinstance(value, str):
            return None
        found = compiled.search(value)
        return found.group(group) if found else None

    return match


def _password_in_url(key: str, value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    for found in re.finditer(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@", value):
        if _PLACEHOLDER.sub("", found.group(1)):
            return found.group(1)
    return None


def _aws_secret_key(key: str, value: Any) -> str | None:
    if not isinstance(value, str) or not _AWS_KEY.search(_fold(key)):
        return None
    return value if re.fullmatch(r"[A-Za-z0-9/+=]{40}", value.strip()) else None


def _secret_flag(key: str, value: Any) -> str | None:
    """``--token=VALUE`` in one string, or ``VALUE`` right after a ``--token`` list item."""
    if not isinstance(value, str):
        return None
    flag = _SECRET_FLAG.match(value)
    if flag and flag.group(2) and is_literal_secret(flag.group(2)):
        return flag.group(2)
    if _SECRET_FLAG.match(key) and not value.startswith("-") and is_literal_secret(value):
        return value
    return None


def _credential_value(key: str, value: Any) -> str | None:
    if isinstance(value, str) and credential_key(key) and is_literal_secret(value):
        return value
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
            for found in _BLOCK_SECRET.finditer(value):
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


@functools.lru_cache(maxsize=4096)  # a fleet has few distinct keys, each tested by two rules
def _fold(key: str) -> str:
    """``key`` lowercased, camelCase humps and '-', '.', '/', ' ' turned into '_'."""
    return re.sub(r"[-./ ]", "_", _CAMEL.sub("_", key)).lower()


@dataclass(frozen=True, slots=True)
class Rule:
    """One secret format: ``match(key, value)`` returns the secret text it found, or None.

    ``positive`` and ``negative`` are (key, value) examples the rule must and must not match.
    Examples are assembled by concatenation so that no secret scanner flags this file. Every rule
    reads strings; one with ``mappings`` also reads dicts (any other value it never matches).
    """

    id: str
    description: str
    match: Matcher
    positive: tuple[str, Any]
    negative: tuple[str, Any]
    mappings: bool = False


_B64_40 = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"  # AWS's documentation example
_JWT_HEAD = "eyJhbGciOiJIUzI1NiJ9"

RULES: tuple[Rule, ...] = (
    Rule(
        "pem-private-key",
        "a PEM private key",
        _content(
            r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----"
            r"(.*?-----END [A-Z0-9 ]*PRIVATE KEY-----|.*)"
        ),
        ("key", "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"),
        ("ca", "-----BEGIN CERTIFICATE-----\nMIIB"),
    ),
    Rule(
        "jwt",
        "a JSON Web Token",
        _content(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        ("auth", _JWT_HEAD + "." + "eyJzdWIiOiJhZG1pbiJ9" + ".c2lnbmF0dXJlLWJ5dGVz"),
        ("auth", _JWT_HEAD),
    ),
    Rule(
        "github-token",
        "a GitHub token",
        _content(r"\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
        ("GIT_AUTH", "ghp_" + "0123456789abcdefghij" * 2),
        ("GIT_AUTH", "ghp_short"),
    ),
    Rule(
        "gitlab-token",
        "a GitLab token",
        _content(r"\bglpat-[A-Za-z0-9_-]{20,}"),
        ("GIT_AUTH", "glpat-" + "x1Y2z3A4b5C6d7E8f9G0"),
        ("branch", "glpat-"),
    ),
    Rule(
        "aws-access-key-id",
        "an AWS access key id",
        _content(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
        ("AWS_ACCESS_KEY_ID", "AKIA" + "IOSFODNN7EXAMPLE"),
        ("id", "AKIA-not-a-key"),
    ),
    Rule(
        "aws-secret-access-key",
        "an AWS secret access key",
        _aws_secret_key,
        ("AWS_SECRET_ACCESS_KEY", _B64_40),
        ("AWS_REGION", _B64_40),
    ),
    Rule(
        "aws-secret-assignment",
        "an AWS secret access key assignment",
        _content(r"(?i)aws_secret_access_key\s*[=:]\s*[\"']?([A-Za-z0-9/+=]{40})", 1),
        ("credentials", "[default]\naws_secret_access_key = " + _B64_40),
        ("config", "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}"),
    ),
    Rule(
        "npm-token",
        "an npm token",
        _content(r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("NPM_AUTH", "npm_" + "a1B2c3D4e5F6g7H8i9J0" + "k1L2m3N4o5P6q7R8"),
        ("pkg", "npm_install"),
    ),
    Rule(
        "pypi-token",
        "a PyPI token",
        _content(r"\bpypi-AgE[A-Za-z0-9_-]{40,}"),
        ("TWINE_AUTH", "pypi-AgE" + "IcHlwaS5vcmcCJGE4ZjYxNjAwLTc5YjktNGM5OS04"),
        ("index", "pypi-mirror"),
    ),
    Rule(
        "slack-token",
        "a Slack token",
        _content(r"\b(xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})"),
        ("SLACK", "xoxb-" + "123456789012-abcdefABCDEF"),
        ("channel", "xoxo-hugs"),
    ),
    Rule(
        "sendgrid-key",
        "a SendGrid API key",
        _content(r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"),
        ("MAIL", "SG." + "aBcDeFgHiJkLmNoPqRsTuV" + "." + "wXyZ0123456789aBcDeFgHiJkLmNoP"),
        ("region", "SG.singapore"),
    ),
    Rule(
        "openai-key",
        "an OpenAI-style API key",
        _content(
            r"\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*[0-9])"
            r"(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{20,}"
        ),
        ("LLM", "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t"),
        ("lang", "sk-slovak-language-pack"),
    ),
    Rule(
        "stripe-key",
        "a Stripe secret key",
        _content(r"\b[rs]k_live_[0-9A-Za-z]{16,}"),
        ("PAY", "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
        ("PAY", "sk_test_mode"),
    ),
    Rule(
        "google-api-key",
        "a Google API key",
        _content(r"\bAIza[0-9A-Za-z_-]{35}"),
        ("MAPS", "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
        ("MAPS", "AIza"),
    ),
    Rule(
        "slack-webhook",
        "a Slack webhook URL",
        _content(r"https://hooks\.slack\.com/(services|workflows|triggers)/[A-Za-z0-9/_-]{20,}"),
        ("ALERTS", "https://hooks.slack.com/services/" + "T00000000/B00000000/XXXXXXXXXXXXXXXX"),
        ("ALERTS", "https://api.slack.com/apps"),
    ),
    Rule(
        "teams-webhook",
        "a Microsoft Teams webhook URL",
        _content(r"https://[A-Za-z0-9.-]*webhook\.office\.com/webhookb2/\S+"),
        ("ALERTS", "https://acme.webhook.office.com/" + "webhookb2/1234@5678/IncomingWebhook/ab"),
        ("ALERTS", "https://outlook.office.com/mail"),
    ),
    Rule(
        "azure-storage-key",
        "an Azure storage connection string with a key",
        _content(r"(?i)(AccountKey|SharedAccessKey)=([A-Za-z0-9+/=]{20,})", 2),
        (
            "STORAGE",
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
            + "Zm9vYmFyYmF6cXV4Zm9vYmFy"
            + "YmF6cXV4==",
        ),
        ("STORAGE", "DefaultEndpointsProtocol=https;AccountName=acme"),
    ),
    Rule(
        "docker-config",
        "a Docker config with registry credentials",
        _docker_config,
        ("config.json", {"auths": {"registry.acme.example": {"auth": "ZGVwbG95OnMzY3IzdA=="}}}),
        ("config.json", {"auths": {"registry.acme.example": {}}}),
        mappings=True,
    ),
    Rule(
        "kubeconfig-credentials",
        "a kubeconfig with user credentials",
        _kubeconfig,
        ("kubeconfig", "apiVersion: v1\nusers:\n- name: admin\n  user:\n    token: abc123xyz"),
        ("kubeconfig", "apiVersion: v1\nusers:\n- name: admin\n  user:\n    exec: {}"),
        mappings=True,
    ),
    Rule(
        "password-in-url",
        "a password in a URL",
        _password_in_url,
        ("DATABASE_URL", "postgres://shop:" + "hunter2@db:5432/shop"),
        ("DATABASE_URL", "postgres://shop:${DB_PASSWORD}@db:5432/shop"),
    ),
    Rule(
        "secret-cli-flag",
        "a secret passed as a command-line flag",
        _secret_flag,
        ("args", "--token=" + "abc123"),
        ("args", "--token-file=/var/run/token"),
    ),
    Rule(
        "credential-key",
        "a literal credential under a credential-named key",
        _credential_value,
        ("DB_PASSWORD", "hunter2"),
        ("DB_PASSWORD", "${DB_PASSWORD}"),
    ),
)
