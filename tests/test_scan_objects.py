"""The secret rules on Kubernetes objects and configuration texts (`scanrules.in_object`): what
the workspace inventory runs over base files and ``validate --render`` over rendered objects.

Secret-looking literals here are assembled by concatenation so that no secret scanner trips.
"""

from __future__ import annotations

import base64
import hashlib
import random
import uuid
from typing import Any

import pytest

from fleetgen.manifests.yamlio import load_first
from fleetgen.rules import secrets as scanrules

GH = "ghp_" + "AbCdEf0123456789" * 2
LITERAL = "Zq8v" + "T1xW0pLm3Kr9Bn"
_RANDOM = random.Random(24)


def _bytes(size: int) -> bytes:
    return bytes(_RANDOM.getrandbits(8) for _ in range(size))


def _found(doc: Any) -> list[tuple[str, str]]:
    return [
        (item.finding.rule.id, scanrules.field_path(item.path))
        for item in scanrules.in_object(doc, parse=load_first)
    ]


# -- what is not a secret -------------------------------------------------------------------------

CA_BUNDLE = base64.b64encode(
    b"-----BEGIN CERTIFICATE-----\n"
    + base64.encodebytes(_bytes(900))
    + b"-----END CERTIFICATE-----\n"
).decode()
DIGEST = "sha256:" + hashlib.sha256(b"image").hexdigest()


def _deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "uid": str(uuid.UUID(int=_RANDOM.getrandbits(128))),
            "annotations": {
                "checksum/config": hashlib.sha256(b"config").hexdigest(),
                "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z",
            },
        },
        "spec": {
            "template": {
                "spec": {
                    "serviceAccountName": "web",
                    "automountServiceAccountToken": False,
                    "imagePullSecrets": [{"name": "regcred"}],
                    "containers": [
                        {
                            "name": "web",
                            "image": "ghcr.io/acme/web@" + DIGEST,
                            "args": [
                                "--token-file=/var/run/secrets/token",
                                "--password-file",
                                "/etc/pw",
                            ],
                            "env": [
                                {
                                    "name": "DB_PASSWORD",
                                    "valueFrom": {
                                        "secretKeyRef": {"name": "db", "key": "password"}
                                    },
                                },
                                {"name": "TOKEN_TTL", "value": "3600"},
                                {"name": "API_KEY_FILE", "value": "/etc/key"},
                                {"name": "REQUEST_ID", "value": str(uuid.uuid4())},
                                {"name": "GIT_SHA", "value": hashlib.sha1(b"x").hexdigest()},
                            ],
                        }
                    ],
                    "volumes": [
                        {
                            "name": "token",
                            "projected": {
                                "sources": [
                                    {"serviceAccountToken": {"path": "token", "audience": "vault"}}
                                ]
                            },
                        },
                        {"name": "tls", "secret": {"secretName": "web-tls"}},
                    ],
                }
            }
        },
    }


NOT_SECRETS = [
    _deployment(),
    {  # a token Secret the control plane fills
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": "web-token",
            "annotations": {"kubernetes.io/service-account.name": "web"},
        },
        "type": "kubernetes.io/service-account-token",
    },
    {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "empty"},
        "data": {},
        "stringData": {"k": ""},
    },
    {  # filled by Flux's post-build substitution
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "db"},
        "stringData": {"password": "${DB_PASSWORD}"},
    },
    {  # encrypted by SOPS
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "sops"},
        "data": {"password": "ENC[AES256_GCM,data:c2VjcmV0,iv:aXY=,tag:dGFn,type:str]"},
        "sops": {"mac": "ENC[AES256_GCM,data:bWFj,iv:aXY=,tag:dGFn,type:str]", "version": "3.9.0"},
    },
    {  # encrypted by Sealed Secrets
        "apiVersion": "bitnami.com/v1alpha1",
        "kind": "SealedSecret",
        "metadata": {"name": "db"},
        "spec": {"encryptedData": {"password": base64.b64encode(_bytes(300)).decode()}},
    },
    {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "acme"},
        "webhooks": [{"name": "acme.example.com", "clientConfig": {"caBundle": CA_BUNDLE}}],
    },
    {
        "apiVersion": "external-secrets.io/v1",
        "kind": "ExternalSecret",
        "metadata": {"name": "db"},
        "spec": {
            "secretStoreRef": {"name": "vault", "kind": "ClusterSecretStore"},
            "data": [
                {"secretKey": "password", "remoteRef": {"key": "apps/db", "property": "password"}},
                {"secretKey": "API_TOKEN", "remoteRef": {"key": "apps/db", "property": "token"}},
            ],
            "target": {"template": {"data": {"url": "postgres://app:{{ .password }}@db/app"}}},
        },
    },
    {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "web"},
        "spec": {"tls": [{"hosts": ["web.acme.example"], "secretName": "web-tls"}]},
    },
    {
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": {"name": "web"},
        "spec": {
            "secretName": "web-tls",
            "privateKey": {"algorithm": "ECDSA", "size": 256},
            "keystores": {
                "pkcs12": {"create": True, "passwordSecretRef": {"name": "pw", "key": "password"}}
            },
        },
    },
    {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "pg"},
        "spec": {
            "values": {
                "auth": {
                    "existingSecret": "pg-auth",
                    "secretKeys": {"adminPasswordKey": "postgres-password"},
                    "password": "",
                },
                "imagePullSecret": "regcred",
                "tlsSecret": "pg-tls",
                "passwordSecretKey": "password",
            }
        },
    },
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "config"},
        "data": {
            "ca.crt": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
            "grafana.ini": "[security]\nadmin_user = admin\n"
            "admin_password = $__file{/etc/secrets/admin}\n"
            "[auth.generic_oauth]\nclient_secret = ${GF_CLIENT_SECRET}\n",
            "prometheus.yml": "scrape_configs:\n- job_name: x\n"
            "  bearer_token_file: /var/run/token\n"
            "  basic_auth:\n    username: u\n    password_file: /etc/pw\n",
            "dex.config": "connectors:\n- type: github\n  config:\n    clientID: abc\n"
            "    clientSecret: $dex.github.clientSecret\n",
            "app.yaml": "db:\n  host: db\n  password:\n    secretKeyRef: db\n  token: ''\n"
            "  # password: example\n  apiKey: null\n",
            "nginx.conf": "server {\n  listen 443 ssl;\n"
            "  ssl_certificate_key /etc/tls/tls.key;\n}\n",
            "blob": base64.b64encode(_bytes(6000)).decode(),
            "hex": _bytes(64).hex(),
            "ids": "\n".join(str(uuid.UUID(int=_RANDOM.getrandbits(128))) for _ in range(50)),
            "digest": DIGEST,
            "recipient": "age1" + "qpzry9x8gf2tvdw0s3jn54khce6mua7l" * 2 + "qpzry9",
        },
    },
    {  # Strimzi: the fields of a passwordSecret name a Secret and its key
        "apiVersion": "kafka.strimzi.io/v1beta2",
        "kind": "KafkaConnect",
        "metadata": {"name": "connect"},
        "spec": {
            "authentication": {
                "type": "scram-sha-512",
                "username": "connect",
                "passwordSecret": {"secretName": "connect-user", "password": "password"},
            }
        },
    },
    {  # a CRD's schema: descriptions, never values
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.acme.example"},
        "spec": {
            "versions": [
                {
                    "name": "v1",
                    "schema": {
                        "openAPIV3Schema": {
                            "description": "A widget.\ntoken: the token it sends\n"
                            "password: see docs",
                            "type": "object",
                        }
                    },
                }
            ]
        },
    },
]


@pytest.mark.parametrize(
    "doc", NOT_SECRETS, ids=[f"{d['kind']}-{d['metadata']['name']}" for d in NOT_SECRETS]
)
def test_ordinary_kubernetes_data_holds_no_secret(doc: dict[str, Any]) -> None:
    """Image digests, UUIDs, hashes, base64 CA bundles and random base64, references of every
    kind (secretKeyRef, secretName, existingSecret, ${VAR}, $__file{}, $argocd-ref, SOPS,
    Sealed Secrets, ExternalSecret key names), empty values: no rule finds anything."""
    assert _found(doc) == []


@pytest.mark.parametrize("seed", range(20))
def test_random_base64_hex_and_uuids_match_no_format(seed: int) -> None:
    rnd = random.Random(seed)
    blob = bytes(rnd.getrandbits(8) for _ in range(3000))
    for text in (
        base64.b64encode(blob).decode(),
        base64.urlsafe_b64encode(blob).decode(),
        blob.hex(),
        blob.hex().upper(),
        " ".join(str(uuid.UUID(bytes=blob[i : i + 16])) for i in range(0, 1600, 16)),
    ):
        assert scanrules.find("data", text) is None


# -- what is one ----------------------------------------------------------------------------------


def test_every_value_of_a_secrets_data_is_reported_by_its_format_or_as_plain_secret() -> None:
    doc = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "app"},
        "data": {
            "password": base64.b64encode(b"hunter2").decode(),  # decoded: a value
            "git": base64.b64encode(GH.encode()).decode(),  # decoded: a GitHub token
            "empty": "",
        },
        "stringData": {"DB_HOST": "db.internal", "token": GH, "later": "${TOKEN}"},
    }
    assert _found(doc) == [
        ("plain-secret", "data/password"),
        ("github-token", "data/git"),
        ("plain-secret", "stringData/DB_HOST"),
        ("github-token", "stringData/token"),
    ]


def test_a_secret_inside_another_document_is_found_once() -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "x"},
        "stringData": {"a": "b"},
    }
    assert _found({"apiVersion": "v1", "kind": "List", "items": [secret]}) == [
        ("plain-secret", "items/0")
    ]
    token = {**secret, "stringData": {"token": GH}}
    assert _found({"apiVersion": "v1", "kind": "List", "items": [token]}) == [
        ("github-token", "items/0/stringData/token")
    ]


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (  # an env value under a credential name, whatever its entropy
            {
                "kind": "Pod",
                "spec": {"containers": [{"env": [{"name": "DB_PASSWORD", "value": "changeme"}]}]},
            },
            [("credential-key", "spec/containers/0/env/0/value")],
        ),
        (  # Helm values: a literal under a credential key, a number too
            {
                "kind": "HelmRelease",
                "spec": {"values": {"auth": {"existingSecret": "", "rootPassword": 1234}}},
            },
            [("credential-key", "spec/values/auth/rootPassword")],
        ),
        (  # a reference key holding something that is no name
            {"kind": "HelmRelease", "spec": {"values": {"existingSecret": LITERAL}}},
            [("credential-key", "spec/values/existingSecret")],
        ),
        (  # what names a Secret holds names: anything else is a literal
            {"kind": "KafkaUser", "spec": {"passwordSecret": {"password": LITERAL}}},
            [("credential-key", "spec/passwordSecret/password")],
        ),
        (  # a configuration text in a ConfigMap
            {
                "kind": "ConfigMap",
                "data": {"application.properties": "spring.datasource.password=" + LITERAL},
            },
            [("credential-assignment", "data/application.properties")],
        ),
        (  # a token anywhere
            {"kind": "ConfigMap", "metadata": {"annotations": {"note": "use " + GH}}},
            [("github-token", "metadata/annotations/note")],
        ),
        (  # a key that is itself a token
            {"kind": "ConfigMap", "data": {GH: "x"}},
            [("github-token", "data/<36 characters>")],
        ),
        (  # an args list: the value after a secret flag
            {"kind": "Pod", "spec": {"containers": [{"args": ["--token", LITERAL]}]}},
            [("secret-cli-flag", "spec/containers/0/args/1")],
        ),
    ],
)
def test_secrets_in_objects_are_found_at_their_path(
    doc: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert _found(doc) == expected


@pytest.mark.parametrize(
    "text",
    [
        "db:\n  password: " + LITERAL + "\n",
        "[database]\npassword = changeme\n",
        "export API_TOKEN=" + LITERAL + "\n",
        '{\n  "clientSecret": "' + LITERAL + '",\n  "id": "x"\n}\n',
        "spring.datasource.password=hunter2",
        "smtp:\n  auth:\n    pass: 'hunter2'\n",
    ],
)
def test_a_credential_assigned_in_a_configuration_text_is_found(text: str) -> None:
    found = scanrules.find("config", text)
    assert found is not None and found.rule.id == "credential-assignment", text


@pytest.mark.parametrize(
    "text",
    [
        "db:\n  password: ${DB_PASSWORD}\n",
        "db:\n  password:\n    valueFrom: vault\n",
        "db:\n  password: |\n    multi\n",
        "[database]\npassword_file = /etc/secrets/db\n",
        "# password: example\nuser: admin\n",
        "token_ttl: 3600\nmax_tokens: 12\n",
        "auth:\n  existingSecret: pg-auth\n",
        "password: ''\ntoken: \"\"\n",
    ],
)
def test_references_in_a_configuration_text_are_not_secrets(text: str) -> None:
    assert scanrules.find("config", text) is None, text


# -- Argo CD's repository settings in argocd-cm ------------------------------------------------

# What argocd-autopilot wrote into argocd-cm: its repository credentials as references.
REPOSITORY_REFERENCES = """\
- url: https://github.com/
  usernameSecret: {name: autopilot-secret, key: git_username}
  passwordSecret: {name: autopilot-secret, key: git_token}
- url: git@gitlab.acme.io:platform
  sshPrivateKeySecret: {name: gitlab-ssh, key: sshPrivateKey}
  tlsClientCertDataSecret: {name: gitlab-tls, key: tls.crt}
  tlsClientCertKeySecret: {name: gitlab-tls, key: tls.key}
  githubAppPrivateKeySecret: {name: gh-app, key: private-key}
  gcpServiceAccountKey: {name: gcp-sa, key: key.json}
"""
PRIVATE_KEY = "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE" + LITERAL + "\n"


def _argocd_cm(data: dict[str, str], name: str = "argocd-cm") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


@pytest.mark.parametrize("key", ["repository.credentials", "repositories", "helm.repositories"])
def test_argocd_repository_settings_naming_secret_keys_pass(key: str) -> None:
    """argo-cd util/settings ``Repository`` and ``RepositoryCredentials``: their ``*Secret``
    fields and ``gcpServiceAccountKey`` are SecretKeySelectors (``{name, key}``), references to
    a Secret, not the credentials."""
    assert _found(_argocd_cm({key: REPOSITORY_REFERENCES})) == []


@pytest.mark.parametrize(
    ("entry", "rule"),
    [
        ("password: hunter2", "credential-key"),
        ("sshPrivateKey: |\n    " + PRIVATE_KEY.replace("\n", "\n    "), "pem-private-key"),
        ("tlsClientCertKey: " + LITERAL, "credential-key"),
        ("bearerToken: " + LITERAL, "credential-key"),
    ],
)
def test_a_literal_credential_in_argocd_repository_settings_stays_an_error(
    entry: str, rule: str
) -> None:
    """A field holding the credential itself, as a repository Secret does, is found at its
    field, never with its text."""
    text = f"- url: https://github.com/acme/app\n  {entry}\n"
    found = _found(_argocd_cm({"repositories": text}))
    field = entry.partition(":")[0]
    assert [(r, path.split("/")[:4]) for r, path in found] == [
        (rule, ["data", "repositories", "0", field])
    ]
    assert all(LITERAL not in path and "hunter2" not in path for _, path in found)


def test_repository_settings_are_argocd_cms_only() -> None:
    """Another ConfigMap's ``repository.credentials`` is tested as any value: a credential key
    holding a literal."""
    found = _found(_argocd_cm({"repository.credentials": REPOSITORY_REFERENCES}, "team-cm"))
    assert found == [("credential-key", "data/repository.credentials")]
