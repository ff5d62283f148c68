"""The secret scan: references, and every carrier of a spec (the rules table on its own examples:
test_secret_rules.py).

Secret-looking literals here are assembled by concatenation so that no secret scanner trips.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fleetgen.errors import SpecError
from fleetgen.inputs import scan
from fleetgen.inputs.load import run_spec
from fleetgen.model import (
    App,
    AppSecret,
    Cluster,
    Environment,
    ExecAuth,
    Fleet,
    HelmChart,
    Overrides,
    Patch,
    Project,
    Role,
)

GH = "ghp_" + "AbCdEf0123456789" * 2
LITERAL = "Zq8v" + "T1xW0pLm3Kr9Bn"  # a literal password: refused under a credential key


@pytest.mark.parametrize(
    "value",
    [
        "vault:secret/data/x#key",
        "apps/x/{env}#password",
        "clusters/{cluster}",
        "${DB_PASSWORD}",
        "$(DB_PASSWORD)",
        "{{ .password }}",
        "$oidc.keycloak.clientSecret",  # Argo CD's reference to argocd-secret
        "$__file{/etc/secrets/admin}",  # Grafana's
        "arn:aws:iam::123456789012:role/x",
        "/var/run/secrets/token",
        "true",
        "null",
        "",
        "https://vault.acme.example:8200",
        "ENC[AES256_GCM,data:Tr0u,iv:x1,tag:y2,type:str]",  # encrypted by SOPS
    ],
)
def test_references_and_flags_are_not_secrets(value: str) -> None:
    for key in ("DB_PASSWORD", "apiToken", "client-secret", "acme.io/credentials", "--token"):
        assert scan.find(key, value) is None, (key, value)


@pytest.mark.parametrize(
    "value",
    [
        "hunter2",
        "s.abc123",
        "Tr0ub4dor&3",
        LITERAL,
        "correcthorsebatterystaple",
        "admin:hunter2",
        # low-entropy words are refused too: a credential key holds a credential, whatever it is
        "changeme",
        "password",
        "disabled",
        "aaaa",
    ],
)
def test_literals_under_credential_keys_are_secrets_whatever_their_entropy(value: str) -> None:
    for key in ("DB_PASSWORD", "apiToken", "client-secret", "acme.io/private-key", "SECRET"):
        found = scan.find(key, value)
        assert found is not None and found.rule.id == "credential-key", (key, value)


@pytest.mark.parametrize(
    "key",
    [
        # the credential word at the end, after any prefix, in any case and separator
        "password",
        "DB_PASSWORD",
        "prod_password",
        "non-prod-password",
        "dbPassword",
        "PGPASSWORD",
        "rootpassword",
        "SMTP_PASS",
        "MYSQL_PWD",
        "passwd",
        "ssh-passphrase",
        "GITHUB_TOKEN",
        "accessToken",
        "api key",
        "apikey",
        "API_KEY",
        "X-Api-Key",
        "apiKey",
        "private_key",
        "privateKey",
        "tls.private-key",
        "client_secret",
        "OAuth2ClientSecret",
        "secret_key",
        "SECRET_KEY_BASE",
        "aws.secretKey",
        "accessKey",
        "encryptionKey",
        "credentials",
        "acme.io/credential",
        # qualifiers after it: environments, versions, numbers
        "password_prod",
        "PASSWORD_OLD",
        "token2",
        "api_key_2",
        "adminPasswordValue",
    ],
)
def test_keys_that_name_a_credential_value(key: str) -> None:
    assert scan.credential_key(key), key
    found = scan.find(key, "changeme")
    assert found is not None and found.rule.id == "credential-key", key


@pytest.mark.parametrize(
    "key",
    [
        "GREETING",
        "TOKEN_TTL",
        "PASSWORD_FILE",
        "passwordFile",
        "password_policy",
        "passwordMinLength",
        "secretName",
        "secretRef",
        "tokenSecretRef",
        "passwordSecretName",
        "acme.io/token-issuer",
        "token_endpoint",
        "maxTokens",
        "bypass",
        "compass",
        "keyName",
        "private_key_id",
        "imagePullSecrets",
        "usePasswordFiles",
    ],
)
def test_keys_that_do_not_name_a_credential(key: str) -> None:
    assert not scan.credential_key(key), key
    assert scan.find(key, LITERAL) is None


@pytest.mark.parametrize(
    "key",
    [
        "existingSecret",
        "auth.existingSecret",
        "existing_secret_name",
        "passwordSecret",
        "passwordSecretKey",
        "tokenSecret",
        "apiKeySecret",
        "tlsSecret",
        "imagePullSecret",
        "DB_PASSWORD_SECRET",
    ],
)
def test_reference_keys_hold_names_and_pass(key: str) -> None:
    """A key that names where a credential is kept holds a Kubernetes name (passes); anything
    that is no name is tested as under a credential key."""
    for name in ("pg-auth", "password", "db.credentials", "web-tls"):
        assert scan.find(key, name) is None, (key, name)
    if scan.credential_key(key):
        found = scan.find(key, LITERAL)
        assert found is not None and found.rule.id == "credential-key", key


def test_a_number_under_a_credential_key_is_a_secret_and_other_numbers_are_not() -> None:
    messages = _messages(
        chart=HelmChart(repo="https://charts.example.com", name="pg", version="1.0.0"),
        path=None,
        values={"auth": {"postgresPassword": 123456, "port": 5432}, "replicaCount": 3},
    )
    assert len(messages) == 1, messages
    assert "['postgresPassword']: <6 characters> looks like a literal credential" in messages[0]
    assert "123456" not in messages[0]


def _carriers() -> Fleet:
    return Fleet(  # <- fleet
        name="shop",
        repo="https://github.com/acme/shop-fleet.git",
        common_annotations={"acme.io/api-key": LITERAL},
        environments=[
            Environment(  # <- environment
                name="dev",
                common_annotations={"acme.io/deploy-token": LITERAL},
            )
        ],
        clusters=[
            Cluster(  # <- cluster
                name="a",
                env="dev",
                server="https://a.example",
                annotations={"acme.io/note": GH},
            ),
            Cluster(
                name="b",
                env="dev",
                server="https://b.example",
                credentials=ExecAuth(env={"AWS_SECRET_ACCESS_KEY": LITERAL}),  # <- exec-env
            ),
            Cluster(
                name="c",
                env="dev",
                server="https://c.example",
                credentials=ExecAuth(args=["gcp", "--client-secret=" + LITERAL]),  # <- args
            ),
        ],
        projects=[
            Project(
                name="shop",
                namespaces=["shop"],
                roles=[Role(name="ci", description="token " + GH)],  # <- role
            )
        ],
        apps=[
            App(  # <- app
                name="web",
                project="shop",
                namespace="shop",
                path="apps/web/base",
                labels={"acme.io/build": GH},
                annotations={"acme.io/db-password": LITERAL},
                config={"web-config": {"SMTP_PASSWORD": LITERAL}},
                per_env={"dev": Overrides(config={"web-config": {"GITHUB": GH}})},  # <- env
                patches=[
                    Patch(  # <- patch
                        target={"kind": "Deployment"},
                        patch={
                            "spec": {
                                "template": {
                                    "metadata": {"annotations": {"acme.io/clientSecret": LITERAL}}
                                }
                            }
                        },
                    )
                ],
                secrets=[
                    AppSecret(  # <- appsecret
                        name="web-db",
                        store="vault",
                        data={"DB_PASSWORD": LITERAL},
                    )
                ],
            )
        ],
    )


CARRIERS = {  # where the secret sits -> the marker of the line it must be reported at
    "fleet.common_annotations['acme.io/api-key']": "fleet",
    "fleet.environments['dev'].common_annotations['acme.io/deploy-token']": "environment",
    "fleet.clusters['a'].annotations['acme.io/note']": "cluster",
    "fleet.clusters['b'].credentials.env['AWS_SECRET_ACCESS_KEY']": "exec-env",
    "fleet.clusters['c'].credentials.args[1]": "args",
    "fleet.projects['shop'].roles['ci'].description": "role",
    "fleet.apps['web'].labels['acme.io/build']": "app",
    "fleet.apps['web'].annotations['acme.io/db-password']": "app",
    "fleet.apps['web'].config['web-config']['SMTP_PASSWORD']": "app",
    "fleet.apps['web'].per_env['dev'].config['web-config']['GITHUB']": "env",
    "fleet.apps['web'].patches[0].patch['spec']['template']['metadata']['annotations']"
    "['acme.io/clientSecret']": "patch",
    "fleet.apps['web'].secrets['web-db'].data['DB_PASSWORD']": "appsecret",
}


def _marker_lines() -> dict[str, int]:
    lines = Path(__file__).read_text().splitlines()
    return {
        line.rsplit("# <- ", 1)[1]: number
        for number, line in enumerate(lines, 1)
        if "# <- " in line
    }


def test_every_carrier_is_found_at_its_line() -> None:
    markers = _marker_lines()
    found = {
        message.split(": ", 1)[0]: (owner.origin, message)
        for owner, message in scan.problems(_carriers())
    }
    assert set(found) == set(CARRIERS)
    for path, marker in CARRIERS.items():
        (file, line), message = found[path]
        assert (Path(file).name, line) == ("test_scan.py", markers[marker]), path
        assert "(rule " in message and scan.HINT in message
        assert LITERAL not in message and GH not in message
        assert LITERAL[:4] not in message and GH[:4] not in message


def _messages(**app: Any) -> list[str]:
    """What the scan says of a one-app fleet whose App takes ``app``."""
    fleet = Fleet(
        name="shop",
        repo="https://github.com/acme/shop-fleet.git",
        environments=[Environment(name="dev")],
        apps=[
            App(
                **{
                    "name": "web",
                    "project": "shop",
                    "namespace": "shop",
                    "path": "apps/web/base",
                    **app,
                }
            )
        ],
    )
    return [message for _, message in scan.problems(fleet)]


def test_a_key_that_is_a_secret_is_masked_in_the_path() -> None:
    messages = _messages(
        config={"web-config": {"GREETING": "hi"}},
        patches=[Patch(target={"kind": "Secret"}, patch={"data": {GH: "x"}})],
    )
    assert messages and all(GH[:4] not in message for message in messages)


def test_a_patch_that_writes_a_secrets_data_is_refused() -> None:
    """Through a patch, fleet.py would put a Secret's data in the repository: refused (a value
    another rule finds is reported by that rule alone); references pass."""
    messages = _messages(
        patches=[
            Patch(target={"kind": "Secret", "name": "db"}, patch={"stringData": {"host": "db1"}}),
            Patch(target={"kind": "Secret"}, patch={"stringData": {"token": GH}}),
            Patch(target={"kind": "Secret"}, patch={"stringData": {"pw": "${DB_PW}"}}),
            Patch(target={"kind": "ConfigMap"}, patch={"data": {"host": "db1"}}),
        ]
    )
    assert [message.split(": ", 1)[0] for message in messages] == [
        "fleet.apps['web'].patches[0].patch",
        "fleet.apps['web'].patches[1].patch['stringData']['token']",
    ]
    assert "(rule plain-secret)" in messages[0] and "(rule github-token)" in messages[1]


def test_a_message_shows_a_secrets_length_and_not_one_of_its_characters() -> None:
    """The README promises a value is never printed: the old hint showed up to four characters
    ('Qx8Q…'), which for a high-entropy key are four characters of the secret itself."""
    assert scan.hint(GH) == f"<{len(GH)} characters>"
    assert scan.hint("hunter2") == "<7 characters>"
    messages = _messages(config={"web-config": {"API_TOKEN": "Qx8QvT3mW9zLp2Rk"}})
    assert messages and not any("Qx8Q" in message for message in messages)
    assert any("<16 characters> looks like" in message for message in messages)


@pytest.mark.parametrize(
    "source",
    [
        # validators quote the value they refuse; the quoted secret is masked
        'Cluster(name="a", env="dev", server="https://a.example", labels={"x": "Bearer " + JWT})',
        'AwsAuth(cluster_name="a", role_arn="AKIA" + "Z7Q4EXAMPLEK3Y9W")',
        'Cluster(name="a", env="dev", server="https://u:" + "Kub3-adm1n-pw" + "@a.example")',
        'Cluster(name="a", env="dev", server="ftp://u:" + "Kub3-adm1n-pw" + "@a.example")',
        # any exception message from the spec is masked too
        'raise KeyError("ghp_" + "AbCdEf0123456789" * 2)',
    ],
)
def test_errors_from_running_the_spec_never_echo_a_secret(source: str) -> None:
    jwt = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiJkZXBsb3kifQ" + ".SflKxwRJSMeKKF2QT4fwpM"
    text = f"from fleetgen import *\nJWT = {jwt!r}\n{source}\n"
    with pytest.raises(SpecError) as raised:
        run_spec(text, "fleet.py", None)
    message = str(raised.value)
    assert message.startswith("fleet.py:3: ")
    for fragment in (
        "SflKxwRJSMeKKF2QT4fwpM",
        "Z7Q4EXAMPLEK3Y9W",
        "Kub3-adm1n-pw",
        "AbCdEf0123456789",
    ):
        assert fragment not in message, message
