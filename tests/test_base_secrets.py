"""Secret material in app bases and rendered objects, through the real CLI: ``build`` refuses a
base file that holds a Secret's data or a token (at the file and line, by rule id, printing the
length only) unless the app waives that rule with a reason; ``validate`` lists those waivers;
``validate --render`` finds what charts render too.

Secret-looking literals here are assembled by concatenation so that no secret scanner trips.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fleetgen.inputs.filesecrets import SecretScan
from fleetgen.manifests.yamlio import load_all
from fleetgen.tools.kustomize import Kustomize
from tests.helpers import run_fleetgen
from tests.test_validate import FLEET, ROOT, deployment, fleet_repo, report, spec_line

GH = "ghp_" + "Qm7Zx2Lp9Vt4Rk8Wn3Hs" * 2
PLAIN = "Pqz7" + "-db-Host9x"


def _secret(**string_data: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "web-git"},
        "stringData": string_data,
    }


def _line(path: Path, marker: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if marker in line)


def _leaked(text: str, *secrets: str) -> list[str]:
    """Every 5-character piece of ``secrets`` that ``text`` shows."""
    return [
        secret[i : i + 5]
        for secret in secrets
        for i in range(len(secret) - 4)
        if secret[i : i + 5] in text
    ]


def test_build_refuses_a_base_secret_at_its_file_and_line_printing_its_length_only(
    tmp_path: Path,
) -> None:
    repo = fleet_repo(tmp_path, {"web": [deployment("web"), _secret(host=PLAIN, token=GH)]})
    result = run_fleetgen(repo, "build")
    assert result.returncode == 2, result.stdout + result.stderr
    objects = repo / "apps/web/base/objects.yaml"
    lines = result.stderr.splitlines()
    assert lines[:2] == [
        f"apps/web/base/objects.yaml:{_line(objects, 'host:')}: app 'web': Secret web-git: "
        f"stringData/host: <{len(PLAIN)} characters> looks like a Secret's data, in plain text in "
        "the repository (rule plain-secret); reference it from a secret store instead (AppSecret, "
        "ExternalSecretRef), or waive it for the app: Waiver(rule='plain-secret', reason=...)",
        f"apps/web/base/objects.yaml:{_line(objects, 'token:')}: app 'web': Secret web-git: "
        f"stringData/token: <{len(GH)} characters> looks like a GitHub token (rule github-token); "
        "reference it from a secret store instead (AppSecret, ExternalSecretRef), or waive it for "
        "the app: Waiver(rule='github-token', reason=...)",
    ]
    assert lines[2:] == ["2 problem(s); nothing was written"]
    assert _leaked(result.stdout + result.stderr, GH.removeprefix("ghp_"), PLAIN) == []
    assert not (repo / "output").exists()


def test_a_waiver_of_the_rule_lets_the_base_build_and_validate_lists_it(tmp_path: Path) -> None:
    waivers = (
        ', waivers=[Waiver(rule="plain-secret", reason="a fixture"),'
        ' Waiver(rule="github-token", reason="a revoked token")]'
    )
    repo = fleet_repo(
        tmp_path,
        {"web": [deployment("web"), _secret(host=PLAIN, token=GH)], "other": [deployment("o")]},
        extra={"web": waivers},
    )
    assert run_fleetgen(repo, "build").returncode == 0
    data = report(repo, code=0)
    assert data["findings"] == []
    line = spec_line(repo, "# <- web")
    assert data["waived"] == [
        {
            "app": "web",
            "rule": "plain-secret",
            "reason": "a fixture",
            "location": {"path": "fleet.py", "line": line},
            "silenced": 1,
        },
        {
            "app": "web",
            "rule": "github-token",
            "reason": "a revoked token",
            "location": {"path": "fleet.py", "line": line},
            "silenced": 1,
        },
    ]


def test_a_waiver_silences_its_rule_only_and_for_its_app_only(tmp_path: Path) -> None:
    repo = fleet_repo(
        tmp_path,
        {"web": [_secret(host=PLAIN, token=GH)], "api": [_secret(host=PLAIN)]},
        extra={"web": ', waivers=[Waiver(rule="plain-secret", reason="a fixture")]'},
    )
    result = run_fleetgen(repo, "build")
    assert result.returncode == 2
    problems = result.stderr.splitlines()[:-1]
    assert [(p.split(": ")[1], p.rsplit("(rule ", 1)[1].split(")")[0]) for p in problems] == [
        ("app 'api'", "plain-secret"),
        ("app 'web'", "github-token"),
    ]


def test_a_waiver_never_silences_a_secret_in_fleet_py(tmp_path: Path) -> None:
    repo = fleet_repo(
        tmp_path,
        {"web": [deployment("web")]},
        extra={
            "web": ', config={"c": {"TOKEN": "' + GH + '"}},'
            ' waivers=[Waiver(rule="github-token", reason="no")]'
        },
    )
    result = run_fleetgen(repo, "build")
    assert result.returncode == 2
    assert "(rule github-token)" in result.stderr
    assert result.stderr.startswith(f"fleet.py:{spec_line(repo, '# <- web')}: ")


def test_a_policy_cannot_turn_a_secret_rule_off(tmp_path: Path) -> None:
    repo = fleet_repo(
        tmp_path,
        {"web": [deployment("web")]},
        fleet=FLEET.replace(
            'name="t",', 'name="t", policy=Policy(rules={{"plain-secret": "off"}}),'
        ),
    )
    result = run_fleetgen(repo, "build")
    assert result.returncode == 2
    assert "rule 'plain-secret' finds secret material: it is always an error" in result.stderr


def test_validate_render_reports_a_secret_a_chart_renders_and_a_waiver_silences_it(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """A chart's templates are not read at build: its rendered objects are checked, the
    finding located at the template file."""
    repo = tmp_path / "repo"
    repo.mkdir()
    fleet = FLEET.replace("Selector, Waiver)", "Selector, Waiver, HelmChart)")
    app = (
        'App(name="echo", project="team", namespace="shared", '
        'chart=HelmChart(path="charts/echo"){extra})'
    )
    chart = repo / "charts/echo"
    shutil.copytree(ROOT / "tests/charts/echo", chart)
    (chart / "templates/secret.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-db\n"
        "stringData:\n  host: " + PLAIN + "\n"
    )
    (repo / "fleet.py").write_text(fleet.format(apps="        " + app.format(extra="") + ","))
    data = report(repo, "--render", code=1)
    secrets = [f for f in data["findings"] if f["rule"] == "plain-secret"]
    assert secrets == [
        {
            "rule": "plain-secret",
            "severity": "error",
            "message": f"<{len(PLAIN)} characters> looks like a Secret's data, in plain text in "
            "the repository (rule plain-secret)",
            "hint": secrets[0]["hint"],
            "location": {"path": "charts/echo/templates/secret.yaml", "line": None},
            "app": "echo",
            "clusters": ["dev-1", "prod-1", "prod-2"],
            "object": "Secret echo-db",
            "field": "stringData/host",
        }
    ]
    assert "Waiver(rule=..., reason=...)" in secrets[0]["hint"]
    waived = app.format(extra=', waivers=[Waiver(rule="plain-secret", reason="chart default")]')
    (repo / "fleet.py").write_text(fleet.format(apps="        " + waived + ","))
    data = report(repo, "--render")
    assert not [f for f in data["findings"] if f["rule"] in ("plain-secret", "unused-waiver")]
    assert [(w["rule"], w["silenced"]) for w in data["waived"]] == [("plain-secret", 1)]
    text = run_fleetgen(repo, "validate", "--render")
    assert _leaked(text.stdout + text.stderr + json.dumps(data), PLAIN) == []


@pytest.mark.parametrize("render", [False, True])
def test_validate_counts_a_waived_base_secret_with_and_without_render(
    tmp_path: Path, kustomize: Kustomize, render: bool
) -> None:
    repo = fleet_repo(
        tmp_path,
        {"web": [deployment("web"), _secret(host=PLAIN)]},
        extra={"web": ', waivers=[Waiver(rule="plain-secret", reason="a fixture")]'},
    )
    data = report(repo, *(["--render"] if render else []), code=0)
    assert [(w["rule"], w["silenced"]) for w in data["waived"]] == [("plain-secret", 1)]
    assert not [f for f in data["findings"] if f["rule"] == "unused-waiver"]


def test_a_rendered_objects_finding_is_located_at_the_line_of_its_field(tmp_path: Path) -> None:
    """validate locates a rendered object's finding in the base file it came from: the line of
    the field, where the file has it, else where the object starts."""
    from types import SimpleNamespace

    from fleetgen.validate.findings import _Locator

    (tmp_path / "output").mkdir()
    (tmp_path / "s.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n"
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  a: x\n  b: y\n"
    )
    locate = _Locator(tmp_path, SimpleNamespace(out_dir=tmp_path / "output", rendered={}))  # type: ignore[arg-type]
    doc = {"kind": "Secret", "metadata": {"name": "s"}}
    assert str(locate.object("s.yaml", doc)) == "s.yaml:5"
    assert str(locate.object("s.yaml", doc, ("stringData", "b"))) == "s.yaml:11"
    assert str(locate.object("s.yaml", doc, ("stringData", "gone"))) == "s.yaml:10"
    assert (
        str(locate.object("s.yaml", {"kind": "Secret", "metadata": {"name": "other"}})) == "s.yaml"
    )


def _generated_argocd_cm(credentials: str) -> list[tuple[str, int, str, str]]:
    """What the scan of a base's kustomization finds in an argocd-cm configMapGenerator literal
    ``repository.credentials``, as argocd-autopilot's bootstrap wrote it."""
    text = (
        "configMapGenerator:\n- name: argocd-cm\n  behavior: merge\n  literals:\n"
        "  - |\n    repository.credentials=" + credentials.replace("\n", "\n    ").rstrip() + "\n"
    )
    data = text.encode()
    scan = SecretScan()
    scan.scan_kustomization(
        lambda _: None, "bootstrap", ("bootstrap/k.yaml", data, 0), load_all(data)[0]
    )
    return [(s.file, s.line, s.rule, s.field) for s in scan.secrets]


def test_argocd_cm_repository_credentials_naming_secrets_pass_and_literals_do_not() -> None:
    """argo-cd util/settings ``RepositoryCredentials``: ``passwordSecret`` and ``usernameSecret``
    name a key of a Secret; a literal ``password`` is the credential, found at its field."""
    references = (
        "- passwordSecret:\n    key: git_token\n    name: autopilot-secret\n"
        "  url: https://github.com/\n"
        "  usernameSecret:\n    key: git_username\n    name: autopilot-secret\n"
    )
    assert _generated_argocd_cm(references) == []
    literal = "- url: https://github.com/\n  username: bot\n  password: " + PLAIN + "\n"
    assert _generated_argocd_cm(literal) == [
        ("bootstrap/k.yaml", 5, "credential-key", "repository.credentials/0/password")
    ]
