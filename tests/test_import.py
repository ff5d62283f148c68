"""``fleetgen import``: golden import cases and the command's contract.

A case is a folder of ``tests/imports/``: ``repo/`` (a repository as a team has it, written for
these tests in the shapes of public Flux and Argo CD example repositories), ``fleet.py`` (the
fleet import must write), ``findings.txt`` (what it must report, one line each; empty: a clean
import, exit 0) and, for a repository of overlays, ``args`` (import's options, one a line). Each
is imported in a temporary copy, compared with its golden files (``FLEETGEN_UPDATE_GOLDEN=1``
rewrites them), and the written fleet must build and validate;
nothing it writes or prints may hold the secret material its inputs do (`SECRETS`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fleetgen.importer.flux.tenancy import FLUX_ACCOUNTS
from fleetgen.importer.layers import layered
from fleetgen.importer.write import WIDTH, fleet_text
from fleetgen.manifests.yamlio import load_all
from fleetgen.util.templating import Call
from tests.helpers import Ran, run_fleetgen, tree

CASES = sorted(p for p in (Path(__file__).parent / "imports").iterdir() if p.is_dir())


@dataclass(frozen=True)
class Imported:
    """A case's repository imported in a temporary copy, then built and validated there."""

    case: Path
    repo: Path
    ran: Ran
    built: Ran
    validated: Ran


@pytest.fixture(scope="module", params=CASES, ids=lambda p: p.name)
def imported(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Imported:
    case: Path = request.param
    repo = tmp_path_factory.mktemp("import") / case.name
    shutil.copytree(case / "repo", repo)
    args = (case / "args").read_text().splitlines() if (case / "args").exists() else []
    ran = run_fleetgen(repo, "import", *args)
    assert "Traceback" not in ran.stderr, ran.stderr
    if os.environ.get("FLEETGEN_UPDATE_GOLDEN"):
        shutil.copyfile(repo / "fleet.py", case / "fleet.py")
        (case / "findings.txt").write_text(ran.stderr)
    return Imported(case, repo, ran, run_fleetgen(repo, "build"), run_fleetgen(repo, "validate"))


def test_import_writes_the_golden_fleet_and_nothing_else(imported: Imported) -> None:
    case, written = imported.case, (imported.repo / "fleet.py").read_text()
    assert written == (case / "fleet.py").read_text()
    findings = imported.ran.stderr.splitlines()
    assert findings == (case / "findings.txt").read_text().splitlines()
    assert imported.ran.returncode == (1 if findings else 0)
    after = {p: data for p, data in tree(imported.repo).items() if not p.startswith("output/")}
    assert after.pop("fleet.py") == written.encode()
    assert after == tree(case / "repo")  # nothing else written, changed or removed


def test_the_imported_fleet_builds_and_validates(imported: Imported) -> None:
    assert imported.built.returncode == 0, imported.built.stderr
    assert imported.validated.returncode == 0, imported.validated.stdout + imported.validated.stderr


@pytest.mark.parametrize("case", CASES[:1], ids=lambda p: p.name)
def test_dry_run_prints_the_fleet_and_writes_nothing(case: Path, tmp_path: Path) -> None:
    repo = tmp_path / case.name
    shutil.copytree(case / "repo", repo)
    before = tree(repo)
    ran = run_fleetgen(repo, "import", "--dry-run")
    assert ran.stdout == (case / "fleet.py").read_text()
    assert tree(repo) == before


def test_an_existing_fleet_is_refused(tmp_path: Path) -> None:
    (tmp_path / "fleet.py").write_text("# mine\n")
    ran = run_fleetgen(tmp_path, "import")
    assert ran.returncode == 2
    assert ran.stderr.splitlines() == [
        "fleet.py already exists: import writes a first fleet.py, never over one; "
        "nothing was written"
    ]
    assert (tmp_path / "fleet.py").read_text() == "# mine\n"


def test_a_repository_without_gitops_objects_is_nothing_importable(tmp_path: Path) -> None:
    (tmp_path / "deploy.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    ran = run_fleetgen(tmp_path, "import")
    assert ran.returncode == 2
    assert len(ran.stderr.splitlines()) == 1
    assert ran.stderr.startswith("nothing importable in .: no Flux cluster folder")
    assert not (tmp_path / "fleet.py").exists()


def test_a_missing_directory_is_one_line(tmp_path: Path) -> None:
    ran = run_fleetgen(tmp_path, "import", "nowhere")
    assert (ran.returncode, ran.stderr) == (
        2,
        "nowhere: no such directory (DIR); nothing was written\n",
    )


# Secret material the input repositories of the cases hold, which nothing import writes or
# prints may contain.
SECRETS = (
    "glpat-Zx8vQ2mN4pL7rT1wY6kA",  # a token in a Secret of a Flux cluster folder
    "Sup3rS3cretPassw0rd!",  # a password in a HelmRelease's values
    "c2lnbmF0dXJlLWZvci10ZXN0cw",  # the bearer token of Argo CD cluster Secrets
    "ZXJzOgotIG5hbWU6IGFyZ29jZAogIHVzZXI6CiAg",  # a kubeconfig in an Argo CD cluster Secret
    "ghp_R4nd0mT0k3nV4lu3F0rT3st5Onlyxyz1234",  # a token in an Application's repoURL
    "dGVzdC1zaWduYXR1cmUtb25seQ",  # a token in an annotation of a cluster Secret
    "Zq7!mP2#vL9xR4tW",  # a password a Flux Kustomization's patch sets
    "glpat-Hs9Kd2Lm4Np6Qr8St0Uv",  # a token a hub's Kustomization substitutes (staging)
    "glpat-Wx3Yz5Ab7Cd9Ef1Gh2Jk",  # ... and production's
)


def test_secret_material_never_reaches_fleet_py_messages_or_output(imported: Imported) -> None:
    inputs = b"".join(tree(imported.case / "repo").values()).decode()
    held = [secret for secret in SECRETS if secret in inputs]
    written = [
        run.stdout + run.stderr for run in (imported.ran, imported.built, imported.validated)
    ]
    written += [
        data.decode() for path, data in tree(imported.repo).items() if path.startswith("output/")
    ]
    written.append((imported.repo / "fleet.py").read_text())
    for secret in held:
        assert not any(secret in text for text in written), secret


def _output_objects(repo: Path, kind: str) -> list[tuple[str, str]]:
    """(namespace, name) of each object of ``kind`` the build wrote under output/."""
    found = []
    for path, data in tree(repo).items():
        if path.startswith("output/") and path.endswith(".yaml"):
            for obj in load_all(data):
                if isinstance(obj, dict) and obj.get("kind") == kind:
                    meta = obj["metadata"]
                    found.append((meta.get("namespace", ""), meta["name"]))
    return sorted(found)


def test_flux_own_accounts_never_become_tenants(imported: Imported) -> None:
    """The platform's Kustomizations of flux-tenants run as Flux's own ``kustomize-controller``
    (flux2 manifests/bases/kustomize-controller/account.yaml): the imported fleet writes no
    ServiceAccount or binding of it, only the tenant's own account."""
    accounts = _output_objects(imported.repo, "ServiceAccount")
    assert not [account for account in accounts if account[1] in FLUX_ACCOUNTS], accounts
    if imported.case.name == "flux-tenants":
        assert [name for _, name in accounts] == ["dev-team", "dev-team"]  # on both clusters


def test_a_hubs_spokes_are_reached_as_the_original_reaches_them(imported: Imported) -> None:
    """flux-hub-spoke's hub applies to each spoke through a kubeConfig Secret in the spoke's
    namespace on the hub (kustomize-controller ``KustomizationReconciler.reconcile``:
    ``runtimeClient.WithKubeConfig(..., obj.GetNamespace(), ...)``; helm-controller alike). The
    imported fleet's output does the same: every release and every Kustomization applying to a
    spoke sits in its namespace on the hub with a kubeConfig (those applying the hub's own
    objects, a release or a gate, have none), the tenant's release runs as its account there,
    the cluster-wide account is nobody's, and each spoke's release has its own values."""
    spokes: dict[str, list[Any]] = {}
    for path, data in tree(imported.repo).items():
        parts = path.split("/")
        if path.startswith(("output/flux/clusters/hub/spokes/", "output/flux/releases/hub/")) and (
            not path.endswith("/kustomization.yaml")  # kustomize's own
        ):
            spoke = parts[5].removesuffix(".yaml") if parts[2] == "clusters" else parts[4]
            spokes.setdefault(spoke, []).extend(load_all(data))
    if imported.case.name != "flux-hub-spoke":
        assert not spokes
        return
    assert sorted(spokes) == ["production", "staging"]
    hub_side = ("./output/flux/releases/", "./output/flux/gate")
    for spoke, objects in spokes.items():
        assert {obj["metadata"]["namespace"] for obj in objects} == {spoke}
        remote = [
            o
            for o in objects
            if o["kind"] == "HelmRelease"
            or (o["kind"] == "Kustomization" and not o["spec"]["path"].startswith(hub_side))
        ]
        assert all(o["spec"]["kubeConfig"]["secretRef"]["name"] == "kubeconfig" for o in remote)
        releases = {o["metadata"]["name"]: o["spec"] for o in remote if o["kind"] == "HelmRelease"}
        assert releases["podinfo"]["serviceAccountName"] == "flux-restricted"
        assert "serviceAccountName" not in releases["cert-manager"]
        assert releases["podinfo"]["values"]["ui"]["message"] == f"Hello from {spoke}"
    accounts = _output_objects(imported.repo, "ServiceAccount")
    assert accounts == [("production", "flux-restricted"), ("staging", "flux-restricted")]


def _merged(*layers: dict[str, Any]) -> dict[str, Any]:
    """Layers merged as Helm chains values files (mappings deeply, anything else replaced)."""
    out: dict[str, Any] = {}
    for layer in layers:
        for key, value in layer.items():
            both = isinstance(value, dict) and isinstance(out.get(key), dict)
            out[key] = _merged(out[key], value) if both else value
    return out


def test_layers_give_each_cluster_its_settings_back_from_the_shallowest_layer() -> None:
    by_cluster = {
        "dev-1": {"values": {"image": {"tag": "1.1"}, "replicas": 1, "region": "eu"}},
        "prod-eu": {"values": {"image": {"tag": "1.0"}, "replicas": 3, "region": "eu"}},
        "prod-us": {"values": {"image": {"tag": "1.0"}, "replicas": 3, "region": "us"}},
        "prod-ap": {"values": {"image": {"tag": "1.0"}, "replicas": 5, "region": "ap"}},
    }
    env_of = {"dev-1": "dev", "prod-eu": "prod", "prod-us": "prod", "prod-ap": "prod"}
    layers = layered(by_cluster, env_of, {})
    assert layers.shared == {}
    assert layers.per_env == {
        "dev": {"values": {"image": {"tag": "1.1"}, "replicas": 1, "region": "eu"}},
        "prod": {"values": {"image": {"tag": "1.0"}}},
    }
    assert layers.per_cluster == {
        "prod-ap": {"values": {"region": "ap", "replicas": 5}},
        "prod-eu": {"values": {"region": "eu", "replicas": 3}},
        "prod-us": {"values": {"region": "us", "replicas": 3}},
    }
    for cluster, settings in by_cluster.items():
        deeper = (layers.per_env.get(env_of[cluster], {}), layers.per_cluster.get(cluster, {}))
        assert _merged(layers.shared, *deeper) == settings


def test_a_label_that_explains_every_difference_is_the_layer() -> None:
    by_cluster = {name: {"region": name[-2:]} for name in ("dev-eu", "prod-eu", "prod-us")}
    env_of = {"dev-eu": "dev", "prod-eu": "prod", "prod-us": "prod"}
    labels = {name: {"region": name[-2:], "tier": "web"} for name in by_cluster}
    layers = layered(by_cluster, env_of, labels)
    assert (layers.per_env, layers.per_cluster) == ({}, {})
    assert layers.per_label == {"region=eu": {"region": "eu"}, "region=us": {"region": "us"}}


def test_the_git_remote_origin_is_the_fleets_repo(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(CASES[0] / "repo", repo)
    for command in (
        ["init", "-q", "-b", "main"],
        ["remote", "add", "origin", "git@github.com:acme/platform.git"],
    ):
        subprocess.run(["git", *command], cwd=repo, check=True)
    ran = run_fleetgen(repo, "import", "--dry-run")
    assert '    repo="https://github.com/acme/platform.git",\n' in ran.stdout


HOSTILE = {
    "clusters/a/objects.yaml": """\
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: weird}
spec: {sourceRef: flux-system, path: 42, dependsOn: infra, patches: nope, images: [1, 2]}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: []
spec: []
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: hr}
spec: {chart: {spec: {chart: [x], sourceRef: y}}, values: [1], valuesFrom: z, install: yes}
---
- a list
---
kind: 5
""",
    "argocd/objects.yaml": """\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: s}
spec:
  generators: [{list: {elements: x}}, {git: {directories: [{path: 5}]}}, {matrix: {generators: x}}]
  template: {metadata: {name: "{{name}}-x"}, spec: {project: 5, source: x, destination: []}}
---
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: p}
spec: {destinations: x, roles: [{name: [1]}], sourceRepos: abc, clusterResourceWhitelist: 1}
""",
}


def test_objects_of_the_wrong_shape_are_findings_never_a_traceback(tmp_path: Path) -> None:
    for path, text in HOSTILE.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    ran = run_fleetgen(tmp_path, "import", "--dry-run")
    assert ran.exception is None or isinstance(ran.exception, SystemExit), ran.stderr
    assert ran.returncode == 1, ran.stderr
    assert all(re.match(r"[^:]+(:\d+)?: .+ — .+", line) for line in ran.stderr.splitlines())


IMPORTS = Path(__file__).parent / "imports"


def _findings_only(ran: Ran) -> None:
    """A finding per line (``file:LINE: what — what to do``), exit 1: never a traceback or a
    usage error."""
    assert ran.exception is None or isinstance(ran.exception, SystemExit), ran.stderr
    assert ran.returncode == 1, ran.stderr
    assert all(re.match(r"[^:]+(:\d+)?: .+ — .+", line) for line in ran.stderr.splitlines())


def test_an_iam_role_fleetgen_cannot_take_is_a_finding(tmp_path: Path) -> None:
    """A cluster Secret whose roleARN is no IAM role ARN: its credentials are not copied (a
    finding at the Secret), not an error about an option the user never gave."""
    repo = tmp_path / "repo"
    shutil.copytree(IMPORTS / "argocd-unmappable" / "repo", repo)
    secret = repo / "argocd" / "cluster-dev.yaml"
    secret.write_text(secret.read_text().replace("111122223333", "123"))
    ran = run_fleetgen(repo, "import", "--dry-run")
    _findings_only(ran)
    assert (
        "argocd/cluster-dev.yaml:1: cluster Secret 'dev-cluster': its credentials are not copied"
        in ran.stderr
    )


@pytest.mark.parametrize("text", ["{ not: yaml", ""], ids=["broken", "empty"])
def test_a_bootstrap_kustomization_is_read_once_with_the_repository(
    tmp_path: Path, text: str
) -> None:
    """Flux bootstrap's kustomization.yaml is read with the rest of the repository (YAML it cannot
    read is a finding there; an empty file holds no patches), never again on its own."""
    repo = tmp_path / "repo"
    shutil.copytree(IMPORTS / "flux-clusters" / "repo", repo)
    (repo / "clusters" / "staging" / "flux-system" / "kustomization.yaml").write_text(text)
    ran = run_fleetgen(repo, "import", "--dry-run")
    assert ran.exception is None or isinstance(ran.exception, SystemExit), ran.stderr
    golden = (IMPORTS / "flux-clusters" / "findings.txt").read_text().splitlines()
    unread = [line for line in ran.stderr.splitlines() if line not in golden]
    assert (ran.returncode, len(unread)) == (1, 1 if text else 0), ran.stderr
    if text:
        assert unread[0].startswith(
            "clusters/staging/flux-system/kustomization.yaml:2: YAML that cannot be read"
        ), ran.stderr


def test_fleet_text_keeps_a_calls_closing_parentheses_within_the_width() -> None:
    """A call's last argument is followed by the call's parenthesis and what follows the call
    (a comma, the parenthesis of the call around it): the line still fits."""
    for size in range(30, 80):
        chart = Call("HelmChart", {"repo": "oci://" + "r" * size, "name": "app", "version": "6.x"})
        waiver = Call("Waiver", {"rule": "chart-range", "reason": "x" * (size // 2)})
        app = Call("App", {"name": "app", "chart": chart, "waivers": [waiver]})
        text = fleet_text({"name": "t", "apps": [app]}, "a test", [])
        assert max(len(line) for line in text.splitlines()) <= WIDTH, text
