"""``fleetgen add cluster|app``: byte-preserving edits of fleet.py, validation before writing."""

from __future__ import annotations

import base64
import difflib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fleetgen import api, scaffold
from fleetgen.errors import SpecError
from fleetgen.kustomize import Kustomize, build

ROOT = Path(__file__).resolve().parents[2]

ODD = '''\
# An oddly formatted fleet: comments and layout must survive.
from fleetgen import Cluster, Environment, Fleet  # what we use

CLUSTERS = [Cluster(name="a", env="dev", server="https://a.example.com"),  # first
            Cluster(name="b",env="dev",
                    server="https://b.example.com")]  # hugging bracket

fleet = Fleet(name="odd", repo="https://git.example.com/odd.git", engines=["flux"],
              environments=[Environment(name="dev")],   clusters=CLUSTERS)
'''


def fleetgen(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fleetgen", *args], cwd=cwd,
                          capture_output=True, text=True, check=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the example fleet with its committed output/."""
    for name in ("fleet.py", "apps", "charts", "output"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    return tmp_path


def added_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """(removed, added) lines between two texts: an insertion removes nothing."""
    lines = list(difflib.ndiff(before.splitlines(), after.splitlines()))
    return ([x[2:] for x in lines if x.startswith("- ")],
            [x[2:] for x in lines if x.startswith("+ ")])


def test_add_cluster_to_the_example_changes_only_inserted_lines(repo: Path) -> None:
    spec = repo / "fleet.py"
    before = spec.read_text()
    result = fleetgen(repo, "add", "cluster", "prod-south", "--env", "prod",
                      "--server", "https://south.example.com:6443", "--label", "region=south",
                      "--credentials", "external-secret:vault-backend:kube/prod-south")
    assert result.returncode == 0, result.stderr
    after = spec.read_text()
    assert added_lines(before, after) == ([], [
        '        Cluster(name="prod-south", env="prod", server="https://south.example.com:6443",',
        '                labels={"region": "south"},',
        '                credentials=ExternalSecretRef(store="vault-backend", '
        'key="kube/prod-south")),'])
    assert after.index("prod-south") > after.index('Cluster(name="dr"')
    # prod is on Argo CD (Environment(engine="argocd")): registered there, no Flux directory
    assert (repo / "output/argocd/clusters/prod-south.yaml").is_file()
    assert not (repo / "output/flux/clusters/prod-south").exists()
    assert "key: kube/prod-south" in (repo / "output/argocd/clusters/prod-south.yaml").read_text()
    assert "flux bootstrap" not in result.stdout
    assert "api-service on prod-south (prod, wave 3) by argocd" in result.stdout
    assert api.check(spec).findings == []


def test_add_cluster_into_odd_formatting_and_a_named_list(tmp_path: Path) -> None:
    spec = tmp_path / "fleet.py"
    spec.write_text(ODD)
    request = scaffold.ClusterRequest("c", "dev", "https://c.example.com", {"zone": "z1"},
                                      "exec:gcp")
    added = scaffold.add_cluster(spec, request)
    assert spec.read_text() == ODD.replace(
        "from fleetgen import Cluster, Environment, Fleet  #",
        "from fleetgen import Cluster, Environment, ExecAuth, Fleet  #").replace(
        '                    server="https://b.example.com")]',
        '                    server="https://b.example.com"),\n'
        '            Cluster(name="c", env="dev", server="https://c.example.com",\n'
        '                    labels={"zone": "z1"},\n'
        '                    credentials=ExecAuth(args=["gcp"]))]')
    assert added.placements == ()  # no apps yet
    fleet_map = (tmp_path / "output/README.md").read_text()
    assert "| c | dev | — | — | https://c.example.com | zone=z1 |" in fleet_map
    assert added.written and "README.md" in {c.path for c in added.output_changes}


@pytest.mark.parametrize(("args", "message"), [
    (["--env", "qa"], "environment 'qa' is not defined"),
    (["--env", "prod", "--label", "region=no way"], "is not a valid label value"),
    (["--env", "prod", "--name-is", "dr"], "cluster name 'dr' is used more than once"),
    (["--env", "prod", "--label", "fleetgen.io/x=y"], "uses the prefix 'fleetgen.io/'"),
    (["--env", "prod", "--credentials", "vault:x"], "--credentials 'vault:x': use"),
])
def test_add_cluster_rejects_bad_input_and_writes_nothing(repo: Path, args: list[str],
                                                          message: str) -> None:
    name = "dr" if "--name-is" in args else "prod-south"
    args = [a for a in args if a not in ("--name-is", "dr")]
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(repo, "add", "cluster", name, "--server", "https://x.example.com", *args)
    assert result.returncode == 2
    assert message in result.stderr and "nothing was written" in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_add_cluster_engine_overrides_its_environments(repo: Path) -> None:
    """--engine argocd on a dev cluster (dev is on Flux): registered with Argo CD, no Flux."""
    result = fleetgen(repo, "add", "cluster", "dev-2", "--env", "dev", "--server",
                      "https://dev-2.example.com", "--engine", "argocd")
    assert result.returncode == 0, result.stderr
    assert '                engine="argocd"),' in (repo / "fleet.py").read_text()
    assert (repo / "output/argocd/clusters/dev-2.yaml").is_file()
    assert not (repo / "output/flux/clusters/dev-2").exists()
    assert "platform-config on dev-2 (dev) by argocd" in result.stdout
    assert "Argo CD: store the cluster's config JSON" in result.stdout
    assert "flux bootstrap" not in result.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--env", "prod", "--engine", "flux"],
     "environment 'prod' rolls out in waves, but the app's clusters there are on argocd "
     "(dr, prod-east, prod-west) and flux (prod-south)"),
    (["--env", "dev", "--engine", "gitops"], "--engine 'gitops': use argocd or flux"),
])
def test_add_cluster_refuses_an_engine_it_cannot_use(repo: Path, args: list[str],
                                                     message: str) -> None:
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(repo, "add", "cluster", "prod-south", "--server", "https://x.example.com",
                      *args)
    assert result.returncode == 2
    assert message in result.stderr and "nothing was written" in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


CA_PEM = ("-----BEGIN CERTIFICATE-----\nMIIBfzCCASWgAwIBAgIUP08Hf+w+hdLv3aysyj7MTgv08M8w\n"
          "-----END CERTIFICATE-----\n")
AWS = ["--env", "prod", "--server", "https://south.example.com:6443", "--credentials",
       "aws:arn:aws:iam::111122223333:role/argocd:eks-south"]


@pytest.mark.parametrize("encoded", [False, True], ids=["pem", "base64 as aws eks prints it"])
def test_add_an_iam_cluster_with_its_ca(repo: Path, tmp_path: Path, encoded: bool) -> None:
    ca_file = tmp_path / "ca.txt"
    ca_file.write_text(base64.b64encode(CA_PEM.encode()).decode() + "\n" if encoded else CA_PEM)
    result = fleetgen(repo, "add", "cluster", "prod-south", *AWS, "--ca-data", str(ca_file))
    assert result.returncode == 0, result.stderr
    ca_data = base64.b64encode(CA_PEM.encode()).decode()
    assert f'                ca_data="{ca_data}"),' in (repo / "fleet.py").read_text()
    registration = (repo / "output/argocd/clusters/prod-south.yaml").read_text()
    assert f'"caData": "{ca_data}"' in registration
    assert ("aws eks describe-cluster --name eks-south --query "
            "cluster.certificateAuthority.data --output text") in result.stdout


def test_add_an_iam_cluster_without_its_ca_says_how_to_get_it(repo: Path) -> None:
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(repo, "add", "cluster", "prod-south", *AWS)
    assert result.returncode == 2
    assert ("in the new clusters entry: cluster 'prod-south': AwsAuth credentials need the "
            "cluster's CA") in result.stderr
    assert "aws eks describe-cluster --name eks-south" in result.stderr
    assert "--ca-data FILE" in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(("content", "message"), [
    (CA_PEM + "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\n",
     "holds a private key: give the cluster's CA certificate (public) only"),
    ("not a certificate\n", "expected the cluster's CA certificate"),
])
def test_add_refuses_a_ca_file_that_is_not_a_certificate(repo: Path, tmp_path: Path,
                                                         content: str, message: str) -> None:
    ca_file = tmp_path / "ca.pem"
    ca_file.write_text(content)
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(repo, "add", "cluster", "prod-south", *AWS, "--ca-data", str(ca_file))
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_a_refused_add_points_at_fleet_py_as_it_is_on_disk(repo: Path) -> None:
    lines = (repo / "fleet.py").read_text().splitlines()
    insert_before = next(n for n, line in enumerate(lines, 1)
                         if line == "    ]," and lines[n].startswith("    projects="))
    result = fleetgen(repo, "add", "cluster", "prod-south", "--env", "qa", "--server",
                      "https://x.example.com")
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"fleet.py:{insert_before}: in the new clusters entry: cluster 'prod-south': "
        "environment 'qa' is not defined")


def test_add_cluster_dry_run_prints_the_diff_and_writes_nothing(repo: Path) -> None:
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(repo, "add", "cluster", "qa-1", "--env", "dev", "--server",
                      "https://qa.example.com", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("--- a/fleet.py\n+++ b/fleet.py\n")
    assert '+        Cluster(name="qa-1", env="dev", server="https://qa.example.com"),\n' \
        in result.stdout
    # dev is on Flux (Environment(engine="flux")): a Flux directory, no Argo CD registration
    assert "  new      output/flux/clusters/qa-1/kustomizations.yaml\n" in result.stdout
    assert "output/argocd/clusters/qa-1.yaml" not in result.stdout
    assert "  changed  output/README.md\n" in result.stdout
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_a_clusters_list_that_is_not_static_is_left_to_the_user(tmp_path: Path) -> None:
    spec = tmp_path / "fleet.py"
    spec.write_text(ODD.replace("clusters=CLUSTERS", "clusters=CLUSTERS + []"))
    with pytest.raises(SpecError) as caught:
        scaffold.add_cluster(spec, scaffold.ClusterRequest("c", "dev", "https://c.example.com"))
    (problem,) = caught.value.problems
    assert problem.line == 9
    assert "not a list literal" in problem.message
    assert 'add this to it by hand:\nCluster(name="c"' in problem.message
    assert spec.read_text() == ODD.replace("clusters=CLUSTERS", "clusters=CLUSTERS + []")


def test_add_app_creates_a_base_that_builds(repo: Path, kustomize: Kustomize) -> None:
    spec = repo / "fleet.py"
    before = spec.read_text()
    result = fleetgen(repo, "add", "app", "cart", "--project", "orders", "--namespace", "orders",
                      "--envs", "dev", "--envs", "staging",
                      "--image", "registry.acme.example/cart:0.1.0")
    assert result.returncode == 0, result.stderr
    assert added_lines(before, spec.read_text())[1] == [
        '        App(name="cart", project="orders", namespace="orders",',
        '            path="apps/cart/base",',
        '            targets=Selector(envs=["dev", "staging"]),',
        '            images=[Image(name="cart", new_name="registry.acme.example/cart", '
        'tag="0.1.0")]),']
    rendered = build(repo / "output/overlays/cart/staging", kustomize)
    assert "image: registry.acme.example/cart:0.1.0" in rendered
    assert "namespace: orders" in rendered
    assert "cart on dev (dev)" in result.stdout
    again = fleetgen(repo, "add", "app", "cart", "--project", "orders", "--namespace", "orders")
    assert again.returncode == 2 and "already exists" in again.stderr


def test_add_app_with_a_chart_adds_a_chart_app_and_no_base(repo: Path) -> None:
    spec = repo / "fleet.py"
    before = spec.read_text()
    result = fleetgen(repo, "add", "app", "trust", "--project", "platform", "--namespace",
                      "cert-manager", "--envs", "dev",
                      "--chart", "https://charts.jetstack.io/trust-manager@v0.12.0")
    assert result.returncode == 0, result.stderr
    removed, added = added_lines(before, spec.read_text())
    assert removed == []
    assert ('chart=HelmChart(repo="https://charts.jetstack.io", name="trust-manager", '
            'version="v0.12.0"),') in "\n".join(added)
    assert not (repo / "apps" / "trust").exists()
    assert "next: edit its values in fleet.py" in result.stdout
    # dev is on Flux: a HelmRelease there, no ApplicationSet
    assert "kind: HelmRelease\nmetadata:\n  name: trust\n" in (
        repo / "output/flux/clusters/dev/kustomizations.yaml").read_text()
    assert not (repo / "output/argocd/applicationsets/trust.yaml").exists()


@pytest.mark.parametrize("chart", ["ingress-nginx@4.11.3", "https://charts.example.com/x",
                                   "https://charts.example.com/x@^4.0"])
def test_add_app_refuses_a_bad_chart_reference(repo: Path, chart: str) -> None:
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(repo, "add", "app", "ingress", "--project", "platform", "--namespace",
                      "platform", "--chart", chart)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_add_app_with_an_unknown_project_writes_nothing(repo: Path) -> None:
    result = fleetgen(repo, "add", "app", "cart", "--project", "shop", "--namespace", "shop")
    assert result.returncode == 2
    assert "project 'shop' is not defined" in result.stderr
    assert not (repo / "apps/cart").exists()


def test_add_cluster_to_a_rollout_says_which_step_it_joined(repo: Path) -> None:
    """An unlabelled cluster in prod falls to the catch-all Step(), with dr."""
    result = fleetgen(repo, "add", "cluster", "prod-south", "--env", "prod",
                      "--server", "https://south.example.com:6443")
    assert result.returncode == 0, result.stderr
    assert ("rollout: prod-south is in step 3 of 3 of environment prod (the catch-all Step(), "
            "max_update 100%), with dr") in result.stdout.splitlines()
    canary = fleetgen(repo, "add", "cluster", "prod-north", "--env", "prod", "--label",
                      "ring=canary", "--server", "https://north.example.com:6443", "--dry-run")
    assert ("rollout: prod-north is in step 1 of 3 of environment prod (match_labels "
            "ring=canary, max_update 1), with prod-east") in canary.stdout.splitlines()


ROLLOUT_NO_CLUSTERS = """\
from fleetgen import Environment, Fleet, Rollout, Step

fleet = Fleet(
    name="ring",
    repo="https://git.example.com/ring.git",
    engines=["argocd"],
    environments=[
        Environment(name="prod", sync={"automated": True},
                    rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}), Step()])),
    ],
    clusters=[],
)
"""


def test_the_first_cluster_of_a_rollout_environment_leaves_the_catch_all_step_empty(
        tmp_path: Path) -> None:
    """DESIGN: a catch-all Step() left with no cluster is fine, so the environment's first
    (canary) cluster can be added; the map shows no empty wave."""
    spec = tmp_path / "fleet.py"
    spec.write_text(ROLLOUT_NO_CLUSTERS)
    result = fleetgen(tmp_path, "add", "cluster", "canary-1", "--env", "prod", "--label",
                      "ring=canary", "--server", "https://canary-1.example.com",
                      "--credentials", "external-secret:vault:canary-1")
    assert result.returncode == 0, result.stderr
    assert ("rollout: canary-1 is in step 1 of 2 of environment prod (match_labels "
            "ring=canary, max_update 100%), alone") in result.stdout.splitlines()
    assert "Rollout: wave 1: canary-1." in (tmp_path / "output/README.md").read_text()
    assert api.check(spec).findings == []
