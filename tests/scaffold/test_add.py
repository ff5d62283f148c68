"""``fleetgen add cluster|app|env|project``: byte-preserving edits of fleet.py, validation first."""

from __future__ import annotations

import base64
import difflib
import shutil
from pathlib import Path

import pytest

from fleetgen import scaffold
from fleetgen.errors import SpecError
from fleetgen.pipeline import api
from fleetgen.scaffold import edit
from fleetgen.tools.kustomize import Kustomize, build
from tests.helpers import Ran, answering, run_fleetgen

ROOT = Path(__file__).resolve().parents[2]

ODD = """\
# An oddly formatted fleet: comments and layout must survive.
from fleetgen import Cluster, Environment, Fleet  # what we use

CLUSTERS = [Cluster(name="a", env="dev", server="https://a.example.com"),  # first
            Cluster(name="b",env="dev",
                    server="https://b.example.com")]  # hugging bracket

fleet = Fleet(name="odd", repo="https://git.example.com/odd.git", engines=["flux"],
              environments=[Environment(name="dev")],   clusters=CLUSTERS)
"""


def fleetgen(cwd: Path, *args: str) -> Ran:
    return run_fleetgen(cwd, *args)


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
    return (
        [x[2:] for x in lines if x.startswith("- ")],
        [x[2:] for x in lines if x.startswith("+ ")],
    )


def test_add_cluster_to_the_example_changes_only_inserted_lines(repo: Path) -> None:
    spec = repo / "fleet.py"
    before = spec.read_text()
    result = fleetgen(
        repo,
        "add",
        "cluster",
        "prod-south",
        "--env",
        "prod",
        "--server",
        "https://south.example.com:6443",
        "--label",
        "region=south",
        "--var",
        "region=us-south",
        "--credentials",
        "external-secret:vault-backend:kube/prod-south",
    )
    assert result.returncode == 0, result.stderr
    after = spec.read_text()
    assert added_lines(before, after) == (
        [],
        [
            "        Cluster(",
            '            name="prod-south",',
            '            env="prod",',
            '            server="https://south.example.com:6443",',
            '            labels={"region": "south"},',
            '            vars={"region": "us-south"},',
            '            credentials=ExternalSecretRef(store="vault-backend", '
            'key="kube/prod-south"),',
            "        ),",
        ],
    )
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
    request = scaffold.ClusterRequest(
        "c", "dev", "https://c.example.com", {"zone": "z1"}, "exec:gcp"
    )
    added = scaffold.add_cluster(spec, request)
    assert spec.read_text() == ODD.replace(
        "from fleetgen import Cluster, Environment, Fleet  #",
        "from fleetgen import Cluster, Environment, ExecAuth, Fleet  #",
    ).replace(
        '                    server="https://b.example.com")]',
        '                    server="https://b.example.com"),\n'
        "            Cluster(\n"
        '                name="c",\n'
        '                env="dev",\n'
        '                server="https://c.example.com",\n'
        '                labels={"zone": "z1"},\n'
        '                credentials=ExecAuth(args=["gcp"]),\n'
        "            )]",
    )
    assert added.placements == ()  # no apps yet
    fleet_map = (tmp_path / "output/README.md").read_text()
    assert "| c | dev | — | — | https://c.example.com | zone=z1 |" in fleet_map
    assert added.written and "README.md" in {c.path for c in added.output_changes}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--env", "qa"], "environment 'qa' is not defined"),
        (["--env", "prod", "--label", "region=no way"], "is not a valid label value"),
        (["--env", "prod", "--name-is", "dr"], "cluster name 'dr' is used more than once"),
        (["--env", "prod", "--label", "fleetgen.io/x=y"], "uses the prefix 'fleetgen.io/'"),
        (["--env", "prod", "--credentials", "vault:x"], "--credentials 'vault:x': use"),
    ],
)
def test_add_cluster_rejects_bad_input_and_writes_nothing(
    repo: Path, args: list[str], message: str
) -> None:
    name = "dr" if "--name-is" in args else "prod-south"
    args = [a for a in args if a not in ("--name-is", "dr")]
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(repo, "add", "cluster", name, "--server", "https://x.example.com", *args)
    assert result.returncode == 2
    assert message in result.stderr and "nothing was written" in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_add_cluster_engine_overrides_its_environments(repo: Path) -> None:
    """--engine argocd on a dev cluster (dev is on Flux): registered with Argo CD, no Flux."""
    result = fleetgen(
        repo,
        "add",
        "cluster",
        "dev-2",
        "--env",
        "dev",
        "--server",
        "https://dev-2.example.com",
        "--engine",
        "argocd",
        "--var",
        "region=eu-west",
    )
    assert result.returncode == 0, result.stderr
    assert '            engine="argocd",\n        ),' in (repo / "fleet.py").read_text()
    assert (repo / "output/argocd/clusters/dev-2.yaml").is_file()
    assert not (repo / "output/flux/clusters/dev-2").exists()
    assert "platform-config on dev-2 (dev) by argocd" in result.stdout
    assert "Argo CD: store the cluster's config JSON" in result.stdout
    assert "flux bootstrap" not in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--env", "prod", "--engine", "flux"],
            "environment 'prod' rolls out in waves, but the app's clusters there are on argocd "
            "(dr, prod-east, prod-west) and flux (prod-south)",
        ),
        (["--env", "dev", "--engine", "gitops"], "--engine 'gitops': use argocd or flux"),
    ],
)
def test_add_cluster_refuses_an_engine_it_cannot_use(
    repo: Path, args: list[str], message: str
) -> None:
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(
        repo, "add", "cluster", "prod-south", "--server", "https://x.example.com", *args
    )
    assert result.returncode == 2
    assert message in result.stderr and "nothing was written" in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


CA_PEM = (
    "-----BEGIN CERTIFICATE-----\nMIIBfzCCASWgAwIBAgIUP08Hf+w+hdLv3aysyj7MTgv08M8w\n"
    "-----END CERTIFICATE-----\n"
)
AWS = [
    "--env",
    "prod",
    "--server",
    "https://south.example.com:6443",
    "--credentials",
    "aws:arn:aws:iam::111122223333:role/argocd:eks-south",
    "--var",
    "region=us-south",  # the example's apps read ClusterVar("region")
]


@pytest.mark.parametrize("encoded", [False, True], ids=["pem", "base64 as aws eks prints it"])
def test_add_an_iam_cluster_with_its_ca(repo: Path, tmp_path: Path, encoded: bool) -> None:
    ca_file = tmp_path / "ca.txt"
    ca_file.write_text(base64.b64encode(CA_PEM.encode()).decode() + "\n" if encoded else CA_PEM)
    result = fleetgen(repo, "add", "cluster", "prod-south", *AWS, "--ca-data", str(ca_file))
    assert result.returncode == 0, result.stderr
    ca_data = base64.b64encode(CA_PEM.encode()).decode()
    assert f'            ca_data="{ca_data}",\n        ),' in (repo / "fleet.py").read_text()
    registration = (repo / "output/argocd/clusters/prod-south.yaml").read_text()
    assert f'"caData": "{ca_data}"' in registration
    assert (
        "aws eks describe-cluster --name eks-south --query "
        "cluster.certificateAuthority.data --output text"
    ) in result.stdout


def test_add_an_iam_cluster_with_its_ca_file(repo: Path) -> None:
    """--ca-file keeps the CA in its file: fleet.py refers to it, each build reads it."""
    (repo / "certs").mkdir()
    ca_file = repo / "certs/south.pem"
    ca_file.write_text(CA_PEM)
    before = (repo / "fleet.py").read_text()
    result = fleetgen(repo, "add", "cluster", "prod-south", *AWS, "--ca-file", "certs/south.pem")
    assert result.returncode == 0, result.stderr
    removed, added = added_lines(before, (repo / "fleet.py").read_text())
    assert removed == []
    assert '            ca_data=CaFile("certs/south.pem"),' in added
    assert "    CaFile," in added  # imported
    registration = (repo / "output/argocd/clusters/prod-south.yaml").read_text()
    assert f'"caData": "{base64.b64encode(CA_PEM.encode()).decode()}"' in registration
    assert "Argo CD verifies prod-south's API server against certs/south.pem (CaFile)" in (
        result.stdout
    )
    ca_file.write_text(CA_PEM.replace("MIIBfz", "MIICfz"))  # the CA rotated: output is stale
    assert [f.path for f in api.check(repo / "fleet.py").findings] == [
        ".fleetgen/record.json",  # the example cascades: the record holds the registration's digest
        "argocd/clusters/prod-south.yaml",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--ca-file", "certs/none.pem"],
            "in the new clusters entry: cluster 'prod-south': CaFile('certs/none.pem'): "
            "no such file",
        ),
        (["--ca-file", "/etc/hostname"], "--ca-file /etc/hostname: not inside the repository"),
        (
            ["--ca-file", "certs/south.pem", "--ca-data", "certs/south.pem"],
            "--ca-data inlines the CA and --ca-file refers to its file: give one",
        ),
        (
            ["--ca-file", "fleet.py"],
            "in the new clusters entry: cluster 'prod-south': CaFile('fleet.py'): expected the "
            "cluster's CA certificate",
        ),
    ],
)
def test_add_cluster_refuses_a_ca_file_it_cannot_use(
    repo: Path, args: list[str], message: str
) -> None:
    (repo / "certs").mkdir()
    (repo / "certs/south.pem").write_text(CA_PEM)
    before = snapshot(repo)
    result = fleetgen(repo, "add", "cluster", "prod-south", *AWS, *args)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert snapshot(repo) == before


def test_add_an_iam_cluster_without_its_ca_says_how_to_get_it(repo: Path) -> None:
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(repo, "add", "cluster", "prod-south", *AWS)
    assert result.returncode == 2
    assert (
        "in the new clusters entry: cluster 'prod-south': AwsAuth credentials need the cluster's CA"
    ) in result.stderr
    assert "aws eks describe-cluster --name eks-south" in result.stderr
    assert "--ca-data FILE" in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            CA_PEM + "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\n",
            "holds a private key: give the cluster's CA certificate (public) only",
        ),
        ("not a certificate\n", "expected the cluster's CA certificate"),
    ],
)
def test_add_refuses_a_ca_file_that_is_not_a_certificate(
    repo: Path, tmp_path: Path, content: str, message: str
) -> None:
    ca_file = tmp_path / "ca.pem"
    ca_file.write_text(content)
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(repo, "add", "cluster", "prod-south", *AWS, "--ca-data", str(ca_file))
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_a_refused_add_points_at_fleet_py_as_it_is_on_disk(repo: Path) -> None:
    lines = (repo / "fleet.py").read_text().splitlines()
    insert_before = next(
        n
        for n, line in enumerate(lines, 1)
        if line == "    ]," and lines[n].startswith("    projects=")
    )
    result = fleetgen(
        repo, "add", "cluster", "prod-south", "--env", "qa", "--server", "https://x.example.com"
    )
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"fleet.py:{insert_before}: in the new clusters entry: cluster 'prod-south': "
        "environment 'qa' is not defined"
    )


def test_add_cluster_dry_run_prints_the_diff_and_writes_nothing(repo: Path) -> None:
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(
        repo,
        "add",
        "cluster",
        "qa-1",
        "--env",
        "dev",
        "--server",
        "https://qa.example.com",
        "--var",
        "region=eu-west",
        "--dry-run",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("--- a/fleet.py\n+++ b/fleet.py\n")
    assert (
        '+        Cluster(\n+            name="qa-1",\n+            env="dev",\n'
        '+            server="https://qa.example.com",\n+            vars={"region": "eu-west"},\n'
        "+        ),\n" in result.stdout
    )
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
    result = fleetgen(
        repo,
        "add",
        "app",
        "cart",
        "--project",
        "orders",
        "--namespace",
        "orders",
        "--envs",
        "dev",
        "--envs",
        "staging",
        "--image",
        "registry.acme.example/cart:0.1.0",
    )
    assert result.returncode == 0, result.stderr
    assert added_lines(before, spec.read_text())[1] == [
        "        App(",
        '            name="cart",',
        '            project="orders",',
        '            namespace="orders",',
        '            path="apps/cart/base",',
        '            targets=Selector(envs=["dev", "staging"]),',
        "            images=[",
        '                Image(name="cart", new_name="registry.acme.example/cart", tag="0.1.0")',
        "            ],",
        "        ),",
    ]
    rendered = build(repo / "output/overlays/cart/staging", kustomize)
    assert "image: registry.acme.example/cart:0.1.0" in rendered
    assert "namespace: orders" in rendered
    assert "cart on dev (dev)" in result.stdout
    again = fleetgen(repo, "add", "app", "cart", "--project", "orders", "--namespace", "orders")
    assert again.returncode == 2 and "app 'cart' exists" in again.stderr


def test_add_app_with_a_chart_adds_a_chart_app_and_no_base(repo: Path) -> None:
    spec = repo / "fleet.py"
    before = spec.read_text()
    result = fleetgen(
        repo,
        "add",
        "app",
        "trust",
        "--project",
        "platform",
        "--namespace",
        "cert-manager",
        "--envs",
        "dev",
        "--chart",
        "https://charts.jetstack.io/trust-manager@v0.12.0",
    )
    assert result.returncode == 0, result.stderr
    removed, added = added_lines(before, spec.read_text())
    assert removed == []
    assert (
        "            chart=HelmChart(\n"
        '                repo="https://charts.jetstack.io",\n'
        '                name="trust-manager",\n'
        '                version="v0.12.0",\n'
        "            ),"
    ) in "\n".join(added)
    assert not (repo / "apps" / "trust").exists()
    assert "next: edit its values in fleet.py" in result.stdout
    assert (
        "runs 1 placement:\n  trust on dev (dev) by flux: chart trust-manager@v0.12.0 from "
        "https://charts.jetstack.io\n" in result.stdout
    )
    # dev is on Flux: a HelmRelease there, no ApplicationSet
    assert (
        "kind: HelmRelease\nmetadata:\n  name: trust\n"
        in (repo / "output/flux/clusters/dev/kustomizations.yaml").read_text()
    )
    assert not (repo / "output/argocd/applicationsets/trust.yaml").exists()


@pytest.mark.parametrize(
    "chart",
    ["ingress-nginx@4.11.3", "https://charts.example.com/x", "https://charts.example.com/x@^4.0"],
)
def test_add_app_refuses_a_bad_chart_reference(repo: Path, chart: str) -> None:
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    result = fleetgen(
        repo,
        "add",
        "app",
        "ingress",
        "--project",
        "platform",
        "--namespace",
        "platform",
        "--chart",
        chart,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_add_app_with_an_unknown_project_writes_nothing(repo: Path) -> None:
    result = fleetgen(repo, "add", "app", "cart", "--project", "shop", "--namespace", "shop")
    assert result.returncode == 2
    assert "project 'shop' is not defined" in result.stderr
    assert not (repo / "apps/cart").exists()


def test_add_cluster_to_a_rollout_says_which_step_it_joined(repo: Path) -> None:
    """An unlabelled cluster in prod falls to the catch-all Step(), with dr."""
    result = fleetgen(
        repo,
        "add",
        "cluster",
        "prod-south",
        "--env",
        "prod",
        "--server",
        "https://south.example.com:6443",
        "--var",
        "region=us-south",
    )
    assert result.returncode == 0, result.stderr
    assert (
        "rollout: prod-south is in step 3 of 3 of environment prod (the catch-all Step(), "
        "max_update 100%), with dr"
    ) in result.stdout.splitlines()
    canary = fleetgen(
        repo,
        "add",
        "cluster",
        "prod-north",
        "--env",
        "prod",
        "--label",
        "ring=canary",
        "--var",
        "region=us-north",
        "--server",
        "https://north.example.com:6443",
        "--dry-run",
    )
    assert (
        "rollout: prod-north is in step 1 of 3 of environment prod (match_labels "
        "ring=canary, max_update 1), with prod-east"
    ) in canary.stdout.splitlines()


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
    tmp_path: Path,
) -> None:
    """DESIGN: a catch-all Step() left with no cluster is fine, so the environment's first
    (canary) cluster can be added; the map shows no empty wave."""
    spec = tmp_path / "fleet.py"
    spec.write_text(ROLLOUT_NO_CLUSTERS)
    result = fleetgen(
        tmp_path,
        "add",
        "cluster",
        "canary-1",
        "--env",
        "prod",
        "--label",
        "ring=canary",
        "--server",
        "https://canary-1.example.com",
        "--credentials",
        "external-secret:vault:canary-1",
    )
    assert result.returncode == 0, result.stderr
    assert (
        "rollout: canary-1 is in step 1 of 2 of environment prod (match_labels "
        "ring=canary, max_update 100%), alone"
    ) in result.stdout.splitlines()
    assert "Rollout: wave 1: canary-1." in (tmp_path / "output/README.md").read_text()
    assert api.check(spec).findings == []


def snapshot(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_add_app_adopts_an_existing_base_as_it_is(repo: Path, kustomize: Kustomize) -> None:
    legacy = repo / "deploy/web"
    shutil.copytree(repo / "apps/api-service/base", legacy)
    before = snapshot(legacy)
    result = fleetgen(
        repo,
        "add",
        "app",
        "web",
        "--project",
        "orders",
        "--namespace",
        "orders",
        "--path",
        "deploy/web/",
    )
    assert result.returncode == 0, result.stderr
    assert "added app web; using deploy/web as it is" in result.stdout
    assert "next: edit deploy/web/, then commit" in result.stdout
    assert snapshot(legacy) == before  # not one byte rewritten
    assert not (repo / "apps/web").exists()
    assert (
        '        App(name="web", project="orders", namespace="orders", path="deploy/web"),\n'
        in (repo / "fleet.py").read_text()
    )
    assert "kind: Deployment" in build(repo / "output/overlays/web/staging", kustomize)


LEGACY_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: ghcr.io/acme/storefront:1.0
"""
SIDECAR = """\
        - name: proxy
          image: envoyproxy/envoy:v1.30
"""


def _legacy_base(repo: Path, deployment: str, kustomization: str = "") -> Path:
    base = repo / "deploy/web"
    base.mkdir(parents=True)
    (base / "deployment.yaml").write_text(deployment)
    (base / "kustomization.yaml").write_text("resources: [deployment.yaml]\n" + kustomization)
    return base


WEB = ["add", "app", "web", "--project", "orders", "--namespace", "orders", "--path", "deploy/web"]


def test_add_app_image_of_an_existing_base_is_the_one_in_its_inventory(
    repo: Path, kustomize: Kustomize
) -> None:
    """--image points the base's own image (ghcr.io/acme/storefront) elsewhere, not an image
    named after the app, which the base does not have."""
    _legacy_base(repo, LEGACY_DEPLOYMENT)
    result = fleetgen(repo, *WEB, "--image", "ghcr.io/acme/storefront:2.0")
    assert result.returncode == 0, result.stderr
    assert (
        '            images=[Image(name="ghcr.io/acme/storefront", tag="2.0")],\n        ),'
        in (repo / "fleet.py").read_text()
    )
    assert "image: ghcr.io/acme/storefront:2.0" in build(
        repo / "output/overlays/web/staging", kustomize
    )


def test_add_app_image_of_a_base_with_several_needs_its_name(repo: Path) -> None:
    _legacy_base(repo, LEGACY_DEPLOYMENT + SIDECAR)
    before = snapshot(repo)
    refused = fleetgen(repo, *WEB, "--image", "registry.acme.example/storefront:2.0")
    assert (refused.returncode, refused.stderr) == (
        2,
        "--image: deploy/web has 2 images (envoyproxy/envoy, ghcr.io/acme/storefront); name the "
        "one it sets with --image-name NAME; nothing was written\n",
    )
    assert snapshot(repo) == before
    named = fleetgen(
        repo, *WEB, "--image", "envoyproxy/envoy:v1.31", "--image-name", "envoyproxy/envoy"
    )
    assert named.returncode == 0, named.stderr
    assert 'images=[Image(name="envoyproxy/envoy", tag="v1.31")]' in (repo / "fleet.py").read_text()


def test_add_app_image_of_a_base_that_rewrites_its_images_needs_its_name(repo: Path) -> None:
    _legacy_base(
        repo, LEGACY_DEPLOYMENT, "images: [{name: ghcr.io/acme/storefront, newTag: '1.1'}]\n"
    )
    refused = fleetgen(repo, *WEB, "--image", "ghcr.io/acme/storefront:2.0")
    assert refused.returncode == 2
    assert refused.stderr.startswith(
        "--image: the kustomization of deploy/web rewrites its images itself, so fleetgen "
        "cannot tell which one --image sets; name it with --image-name NAME"
    )


def test_on_a_terminal_add_app_asks_which_image_of_the_base(repo: Path) -> None:
    _legacy_base(repo, LEGACY_DEPLOYMENT + SIDECAR)
    returncode, output = _answering(
        repo, b"2\n", *WEB, "--image", "ghcr.io/acme/storefront:2.0", prompt=b"number or name"
    )
    assert "Which image of deploy/web does --image set?" in output
    assert "  1. envoyproxy/envoy\r\n  2. ghcr.io/acme/storefront" in output
    assert returncode == 0, output
    assert 'Image(name="ghcr.io/acme/storefront", tag="2.0")' in (repo / "fleet.py").read_text()


def test_add_app_image_name_needs_an_image(repo: Path) -> None:
    result = fleetgen(repo, *WEB, "--image-name", "x")
    assert (result.returncode, result.stderr) == (
        2,
        "--image-name names the base's image that --image sets; give --image; nothing was "
        "written\n",
    )


def test_add_app_with_a_new_path_scaffolds_the_base_there(repo: Path) -> None:
    result = fleetgen(
        repo,
        "add",
        "app",
        "web",
        "--project",
        "orders",
        "--namespace",
        "orders",
        "--path",
        "services/web",
    )
    assert result.returncode == 0, result.stderr
    assert (repo / "services/web/kustomization.yaml").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--path", "../elsewhere"], "--path '../elsewhere': give the base's folder relative to"),
        (["--path", "/abs/base"], "--path '/abs/base': give the base's folder relative to"),
        (
            ["--path", "x", "--chart", "https://charts.example.com/web@1.0.0"],
            "--path names a kustomize base; a chart app (--chart) has none",
        ),
    ],
)
def test_add_app_refuses_a_path_it_cannot_use(repo: Path, args: list[str], message: str) -> None:
    before = snapshot(repo)
    result = fleetgen(
        repo, "add", "app", "web", "--project", "orders", "--namespace", "orders", *args
    )
    assert (result.returncode, result.stderr) == (2, f"{message}; nothing was written\n") or (
        result.returncode == 2 and message in result.stderr
    ), result.stderr
    assert snapshot(repo) == before


def test_add_app_with_a_taken_name_says_app_exists(repo: Path) -> None:
    before = snapshot(repo)
    result = fleetgen(
        repo, "add", "app", "api-service", "--project", "orders", "--namespace", "orders"
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "app 'api-service' exists in fleet.py; pick another name; nothing was written\n"
    )
    assert snapshot(repo) == before


def test_add_app_into_a_namespace_its_project_does_not_allow(repo: Path) -> None:
    """Without --extend-project (and no terminal, as in CI) it refuses at once, never waits for
    an answer; with it, the project's namespaces list gets the namespace, in place."""
    before = snapshot(repo)
    refused = fleetgen(repo, "add", "app", "web", "--project", "orders", "--namespace", "web")
    assert refused.returncode == 2
    line = _line_of(repo / "fleet.py", 'Project(name="orders"')
    assert refused.stderr == (
        f"fleet.py:{line}: project 'orders' does not allow namespace 'web' (its namespaces: "
        "orders); pass --extend-project to add it; nothing was written\n"
    )
    assert snapshot(repo) == before
    spec_before = (repo / "fleet.py").read_text()
    result = fleetgen(
        repo, "add", "app", "web", "--project", "orders", "--namespace", "web", "--extend-project"
    )
    assert result.returncode == 0, result.stderr
    assert "extended project orders's namespaces" in result.stdout
    removed, added = added_lines(spec_before, (repo / "fleet.py").read_text())
    assert removed == [
        '        Project(name="orders", description="Order domain", namespaces=["orders"],'
    ]
    assert added[0] == (
        '        Project(name="orders", description="Order domain", namespaces=["orders", "web"],'
    )
    assert (
        "    kind: Namespace\n    name: web\n"
        in (repo / "output/argocd/projects/orders.yaml").read_text()
    )


def _line_of(path: Path, text: str) -> int:
    """The 1-based number of the first line of ``path`` holding ``text``."""
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


CHART = "https://charts.bitnami.com/bitnami/nginx@18.1.0"


def _fresh_fleet(tmp_path: Path) -> Path:
    """A fleet as `fleetgen init` scaffolds it: its project lists source_repos=[REPO]."""
    repo = tmp_path / "fleet"
    created = fleetgen(tmp_path, "init", repo.name, "--repo", "https://github.com/acme/fleet.git")
    assert created.returncode == 0, created.stderr
    assert "source_repos=[REPO]" in (repo / "fleet.py").read_text()
    return repo


def test_add_chart_app_to_a_fresh_fleet_extends_the_projects_source_repos(tmp_path: Path) -> None:
    """Argo CD refuses a chart repository outside an explicit source_repos: add says so at the
    Project's line, and --extend-project adds the repository (and the namespace) in place."""
    repo = _fresh_fleet(tmp_path)
    before = snapshot(repo)
    line = _line_of(repo / "fleet.py", "Project(")
    args = ["add", "app", "web", "--project", "apps", "--chart", CHART]
    refused = fleetgen(repo, *args, "--namespace", "hello")
    assert (refused.returncode, refused.stderr) == (
        2,
        f"fleet.py:{line}: project 'apps' does not allow the chart repository "
        "https://charts.bitnami.com/bitnami (its source_repos: "
        "https://github.com/acme/fleet.git); pass --extend-project to add it; "
        "nothing was written\n",
    )
    both = fleetgen(repo, *args, "--namespace", "web")
    assert both.returncode == 2
    assert both.stderr.startswith(
        f"fleet.py:{line}: project 'apps' does not allow namespace 'web' (its namespaces: "
        "hello) nor the chart repository https://charts.bitnami.com/bitnami"
    )
    assert "pass --extend-project to add them; nothing was written" in both.stderr
    assert snapshot(repo) == before
    spec_before = (repo / "fleet.py").read_text()
    result = fleetgen(repo, *args, "--namespace", "web", "--extend-project")
    assert result.returncode == 0, result.stderr
    assert "extended project apps's namespaces and source_repos" in result.stdout
    assert "  web on dev-1 (dev) by argocd: chart " in result.stdout  # no overlay: its chart
    removed, added = added_lines(spec_before, (repo / "fleet.py").read_text())
    assert removed == ['            namespaces=["hello"],', "            source_repos=[REPO],"]
    assert added[:3] == [
        "    HelmChart,",
        '            namespaces=["hello", "web"],',
        '            source_repos=[REPO, "https://charts.bitnami.com/bitnami"],',
    ]
    project = (repo / "output/argocd/projects/apps.yaml").read_text()
    assert "- https://charts.bitnami.com/bitnami" in project
    assert fleetgen(repo, "build", "--check").returncode == 0


def test_a_chart_app_on_flux_needs_no_source_repos(tmp_path: Path) -> None:
    """source_repos is Argo CD's boundary (the AppProject): a Flux-only fleet adds the chart app
    without extending it."""
    repo = tmp_path / "fleet"
    created = fleetgen(
        tmp_path,
        "init",
        repo.name,
        "--engine",
        "flux",
        "--repo",
        "https://github.com/acme/fleet.git",
    )
    assert created.returncode == 0, created.stderr
    result = fleetgen(
        repo, "add", "app", "web", "--project", "apps", "--namespace", "hello", "--chart", CHART
    )
    assert result.returncode == 0, result.stderr
    assert "source_repos=[REPO],\n" in (repo / "fleet.py").read_text()


def _answering(cwd: Path, answer: bytes, *args: str, prompt: bytes = b"[y/N]") -> tuple[int, str]:
    """Run ``fleetgen ARGS`` on a terminal, typing ``answer`` when it asks (shows ``prompt``)."""
    return answering(cwd, [(prompt, answer)], *args)


@pytest.mark.parametrize(("answer", "code"), [(b"y\n", 0), (b"n\n", 2)])
def test_on_a_terminal_add_app_asks_before_extending_the_project(
    repo: Path, answer: bytes, code: int
) -> None:
    returncode, output = _answering(
        repo, answer, "add", "app", "web", "--project", "orders", "--namespace", "web"
    )
    assert "Add namespace 'web' to project 'orders''s namespaces? [y/N]" in output
    assert returncode == code, output
    assert ('namespaces=["orders", "web"]' in (repo / "fleet.py").read_text()) == (code == 0)


@pytest.mark.parametrize(("answer", "code"), [(b"y\n", 0), (b"n\n", 2)])
def test_on_a_terminal_add_chart_app_asks_before_extending_source_repos(
    tmp_path: Path, answer: bytes, code: int
) -> None:
    repo = _fresh_fleet(tmp_path)
    returncode, output = _answering(
        repo,
        answer,
        "add",
        "app",
        "web",
        "--project",
        "apps",
        "--namespace",
        "hello",
        "--chart",
        CHART,
    )
    assert (
        "Add https://charts.bitnami.com/bitnami to project 'apps''s source_repos? [y/N]" in output
    )
    assert returncode == code, output
    text = (repo / "fleet.py").read_text()
    assert ('source_repos=[REPO, "https://charts.bitnami.com/bitnami"]' in text) == (code == 0)


def test_add_env_after_another_and_at_the_end(repo: Path) -> None:
    spec = repo / "fleet.py"
    before = spec.read_text()
    result = fleetgen(repo, "add", "env", "qa", "--after", "dev")
    assert result.returncode == 0, result.stderr
    assert added_lines(before, spec.read_text()) == (
        [],
        ['        Environment(name="qa", sync=SyncPolicy(automated=True, prune=True)),'],
    )
    text = spec.read_text()
    assert text.index('name="dev"') < text.index('name="qa"') < text.index('name="staging"')
    assert fleetgen(repo, "add", "env", "perf").returncode == 0
    assert spec.read_text().rindex('Environment(name="perf"') > spec.read_text().index(
        'name="prod"'
    )
    assert api.compile_spec(spec).plan.fleet.environments[1].name == "qa"
    assert api.check(spec).findings == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["prod"], "environment 'prod' exists in fleet.py; pick another name"),
        (
            ["qa", "--after", "test"],
            "--after 'test': no such environment (known: dev, staging, prod)",
        ),
        (["Not_Valid"], "Environment.name: 'Not_Valid' is not a DNS-1123 label"),
    ],
)
def test_add_env_refuses_and_writes_nothing(repo: Path, args: list[str], message: str) -> None:
    before = snapshot(repo)
    result = fleetgen(repo, "add", "env", *args)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and snapshot(repo) == before


def test_add_project_then_an_app_in_it(repo: Path) -> None:
    spec = repo / "fleet.py"
    before = spec.read_text()
    result = fleetgen(
        repo,
        "add",
        "project",
        "web",
        "--namespace",
        "web",
        "--namespace",
        "web-*",
        "--description",
        "Web team",
    )
    assert result.returncode == 0, result.stderr
    assert added_lines(before, spec.read_text()) == (
        [],
        [
            '        Project(name="web", description="Web team", namespaces=["web", "web-*"]),',
        ],
    )
    assert (repo / "output/argocd/projects/web.yaml").is_file()
    app = fleetgen(repo, "add", "app", "shop", "--project", "web", "--namespace", "web-shop")
    assert app.returncode == 0, app.stderr  # a glob of the project allows web-shop
    exists = fleetgen(repo, "add", "project", "web", "--namespace", "x")
    assert (exists.returncode, exists.stderr) == (
        2,
        "project 'web' exists in fleet.py; pick another name; nothing was written\n",
    )
    assert api.check(spec).findings == []


def test_add_project_needs_a_namespace(repo: Path) -> None:
    result = fleetgen(repo, "add", "project", "web")
    assert result.returncode == 2 and "--namespace" in result.stderr


ODD_LISTS = """\
from fleetgen import Environment, Fleet, Project  # x

fleet = Fleet(name="a", environments=[Environment(name="dev"),  # dev first
                                      Environment(name="prod")],
    projects=[Project(name="p", namespaces=["a", "b"]),
              Project(name="q",
                      description="x"),  # no namespaces
              Project(
                  name="r",
                  namespaces=[
                      "c",  # keep
                  ],
              )],
)
"""


def test_insert_after_a_named_element_keeps_the_layout_and_its_comments() -> None:
    edited = edit.insert(
        ODD_LISTS, "environments", 'Environment(name="qa")', ["Environment"], after="dev"
    )
    assert edited == ODD_LISTS.replace(
        "  # dev first\n",
        '  # dev first\n                                      Environment(name="qa"),\n',
    )
    one_line = 'fleet = Fleet(environments=[Environment(name="a"), Environment(name="b")])\n'
    assert edit.insert(
        "from fleetgen import *\n" + one_line,
        "environments",
        'Environment(name="x")',
        ["Environment"],
        after="a",
    ).endswith(
        'fleet = Fleet(environments=[Environment(name="a"), Environment(name="x"), '
        'Environment(name="b")])\n'
    )
    with pytest.raises(edit.EditError, match="no element written with name='test'"):
        edit.insert(ODD_LISTS, "environments", 'Environment(name="qa")', [], after="test")


def test_extend_appends_to_a_named_elements_list_or_adds_the_argument() -> None:
    edited = ODD_LISTS
    for project in ("p", "q", "r"):
        edited = edit.extend(edited, "projects", project, "namespaces", '"z"')
    assert edited == ODD_LISTS.replace(
        'namespaces=["a", "b"]', 'namespaces=["a", "b", "z"]'
    ).replace(
        'description="x"),  # no namespaces',
        'description="x",\n                      namespaces=["z"]),  # no namespaces',
    ).replace('"c",  # keep\n', '"c",  # keep\n                      "z",\n')


def test_add_engine_moves_the_named_environment_and_keeps_the_others(tmp_path: Path) -> None:
    """A one-engine fleet gets the second engine for dev; prod stays on Argo CD, with its engine
    written down (a fleet with two engines names each placement's)."""
    repo = _fresh_fleet(tmp_path)
    assert fleetgen(repo, "add", "env", "prod").returncode == 0
    added = fleetgen(
        repo, "add", "cluster", "prod-1", "--env", "prod", "--server", "https://p1.example.com"
    )
    assert added.returncode == 0, added.stderr
    before = (repo / "fleet.py").read_text()
    result = fleetgen(repo, "add", "engine", "flux", "--envs", "dev")
    assert result.returncode == 0, result.stderr
    assert added_lines(before, (repo / "fleet.py").read_text()) == (
        [
            '    engines=["argocd"],',
            '            name="dev", sync=SyncPolicy(automated=True, prune=True, self_heal=True)',
            '        Environment(name="prod", sync=SyncPolicy(automated=True, prune=True)),',
        ],
        [  # each edited Environment laid out again, as ruff lays it out at 88 (init's fleet is)
            '    engines=["argocd", "flux"],',
            '            name="dev",',
            "            sync=SyncPolicy(automated=True, prune=True, self_heal=True),",
            '            engine="flux",',
            "        Environment(",
            '            name="prod", sync=SyncPolicy(automated=True, prune=True), engine="argocd"',
            "        ),",
        ],
    )
    lines = result.stdout.splitlines()
    assert "added engine flux" in lines
    assert "  hello on dev-1 (dev) by flux: overlays/hello/dev" in lines
    assert (
        'kept environment(s) prod on argocd (engine="argocd" set: with two engines, fleet.py '
        "names each placement's)"
    ) in lines
    assert (
        "    flux bootstrap git --url=https://github.com/acme/fleet.git --branch=main "
        "--path=output/flux/clusters/dev-1"
    ) in lines
    assert (repo / "output/flux/clusters/dev-1/kustomizations.yaml").is_file()
    assert not (repo / "output/argocd/clusters/dev-1.yaml").exists()
    assert (repo / "output/argocd/clusters/prod-1.yaml").is_file()
    assert fleetgen(repo, "build", "--check").returncode == 0


def test_add_engine_to_a_fleet_that_leaves_engines_to_the_default(tmp_path: Path) -> None:
    spec = tmp_path / "fleet.py"
    source = (
        "from fleetgen import Cluster, Environment, Fleet  # keep\n\n"
        'fleet = Fleet(name="a", repo="https://github.com/acme/a.git",\n'
        '              environments=[Environment(name="dev"), Environment(name="prod")],\n'
        '              clusters=[Cluster(name="d", env="dev", server="https://d.example.com")])\n'
    )
    spec.write_text(source)
    added = scaffold.add_engine(spec, scaffold.EngineRequest("flux", ("dev", "prod")))
    assert spec.read_text() == source.replace(
        'Environment(name="dev"), Environment(name="prod")',
        'Environment(name="dev", engine="flux"), Environment(name="prod", engine="flux")',
    ).replace(
        'server="https://d.example.com")])\n',
        'server="https://d.example.com")],\n              engines=["argocd", "flux"])\n',
    )
    assert added.pinned == () and added.written


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["flux", "--envs", "qa"], "--envs 'qa': no such environment (known: dev, staging, prod)"),
        (
            ["flux", "--envs", "dev"],
            "the fleet lists engine 'flux' already, and environment(s) dev run on it; name the "
            "environments it should take over with --envs ENV",
        ),
        (["gitops"], "--engine 'gitops': use argocd or flux"),
    ],
)
def test_add_engine_refuses_and_writes_nothing(repo: Path, args: list[str], message: str) -> None:
    before = snapshot(repo)
    result = fleetgen(repo, "add", "engine", *args)
    assert (result.returncode, result.stderr) == (2, f"{message}; nothing was written\n")
    assert snapshot(repo) == before


def test_add_engine_moves_an_environment_between_listed_engines(repo: Path) -> None:
    """The example lists both engines: prod (Argo CD) moves to Flux, its engine= rewritten in
    place."""
    spec = repo / "fleet.py"
    before = spec.read_text()
    result = fleetgen(repo, "add", "engine", "flux", "--envs", "prod", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert spec.read_text() == before
    assert (
        '-            name="prod", engine="argocd",\n+            name="prod", engine="flux",\n'
        in (result.stdout)
    )
    assert "kept environment" not in result.stdout and "would add engine flux" in result.stdout


def test_add_engine_refuses_to_move_a_cascading_placement_in_one_commit(repo: Path) -> None:
    """staging runs status-page (cascade_delete=True) on Argo CD, whose resources finalizer would
    delete what Flux takes over (`fleetgen.settle.enginemoves`): refused at the Environment line
    add engine edits, writing nothing; orphaned first (built and committed), the move goes."""
    before = snapshot(repo)
    result = fleetgen(repo, "add", "engine", "flux", "--envs", "staging")
    assert result.returncode == 2
    line = next(
        n
        for n, text in enumerate((repo / "fleet.py").read_text().splitlines(), 1)
        if 'Environment(name="staging"' in text
    )
    assert result.stderr.startswith(f"fleet.py:{line}: in an edited line: environment 'staging': ")
    assert "status-page on staging moves from Argo CD to Flux" in result.stderr
    assert snapshot(repo) == before
    spec = repo / "fleet.py"
    spec.write_text(
        spec.read_text().replace(
            'name="status-page", project="platform", namespace="platform", cascade_delete=True,',
            'name="status-page", project="platform", namespace="platform", cascade_delete=False,',
        )
    )
    assert fleetgen(repo, "build").returncode == 0
    moved = fleetgen(repo, "add", "engine", "flux", "--envs", "staging")
    assert moved.returncode == 0, moved.stderr


def test_add_cluster_needs_the_vars_the_fleets_apps_read(repo: Path) -> None:
    """The example's apps read ClusterVar("region"): a cluster added without it is refused at
    each ClusterVar, naming the cluster, and --var gives it."""
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    args = ("add", "cluster", "qa-1", "--env", "dev", "--server", "https://qa.example.com")
    result = fleetgen(repo, *args)
    assert result.returncode == 2
    assert "ClusterVar('region') has no value on cluster 'qa-1'" in result.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before
    refused = fleetgen(repo, *args, "--var", "region")
    assert refused.returncode == 2
    assert "--var 'region': write NAME=VALUE" in refused.stderr
    added = fleetgen(repo, *args, "--var", "region=eu-north")
    assert added.returncode == 0, added.stderr
    overlay = repo / "output/overlays/platform-config/clusters/qa-1/kustomization.yaml"
    assert "REGION=eu-north" in overlay.read_text()
