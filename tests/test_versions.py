"""``fleetgen versions``: the matrix of what each environment runs, its JSON contract and the
order check (issue 27)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import jsonschema_rs
import pytest

from fleetgen.emit import versions
from fleetgen.pipeline import api
from tests.helpers import run_fleetgen

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "docs" / "versions.schema.json"
EXAMPLE_ROWS = [
    ("api-service", "image", "api-service", {"dev": "3.2.0", "staging": "3.2.0", "prod": "3.2.0"}),
    (
        "cert-manager",
        "chart",
        "cert-manager",
        {"dev": "v1.16.2", "staging": "v1.16.2", "prod": "v1.16.2"},
    ),
    (
        "order-service",
        "image",
        "order-service",
        {"dev": "1.9.0-rc.1", "staging": "1.8.2", "prod": "1.8.2"},
    ),
    (
        "payment-service",
        "image",
        "payment-service",
        {"staging": "2.4.1", "prod": "sha256:4f53cda18c2b…"},
    ),
    ("status-page", "chart", "status-page", {"dev": "0.1.0", "staging": "0.1.0"}),
]


@pytest.fixture(scope="module")
def plan() -> api.Plan:
    return api.compile_spec(ROOT / "fleet.py").plan


@pytest.fixture
def example(tmp_path: Path) -> Path:
    for name in ("fleet.py", "apps", "charts"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    return tmp_path


def test_rows_read_each_environments_versions_from_the_plan(plan: api.Plan) -> None:
    table = versions.rows(plan)
    assert [
        (row.app, row.kind, row.name, {cell.env: cell.text for cell in row.cells}) for row in table
    ] == EXAMPLE_ROWS
    lagging = {row.app: row.lagging() for row in table}
    assert lagging["order-service"] == {"staging": "dev"}
    assert lagging["payment-service"] == {"prod": "staging"}
    assert lagging["api-service"] == {}
    prod = next(row for row in table if row.app == "api-service").cell("prod")
    assert prod is not None and list(prod.clusters) == ["prod-east", "prod-west", "dr"]


def test_text_marks_where_an_environment_differs_from_the_one_before(example: Path) -> None:
    done = run_fleetgen(example, "versions", "order-service", "payment-service")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == [
        "app              image or chart         dev         staging  prod",
        "order-service    image order-service    1.9.0-rc.1  1.8.2 *  1.8.2",
        "payment-service  image payment-service  ·           2.4.1    sha256:4f53cda18c2b… *",
    ]
    assert lines[4].startswith("`*`: differs from the environment before it")


def test_clusters_that_disagree_are_shown_each(example: Path) -> None:
    spec = example / "fleet.py"
    spec.write_text(
        spec.read_text().replace(
            'per_label={DR: Overrides(replicas={"api-service": 1}',
            'per_cluster={"prod-west": Overrides(images=[Image(name="api-service", '
            'tag="3.1.9")])},\n            per_label={DR: Overrides(replicas={"api-service": 1}',
        )
    )
    done = run_fleetgen(example, "versions", "api-service", "--format", "markdown")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:3] == [
        "| app | image or chart | dev | staging | prod |",
        "| --- | --- | --- | --- | --- |",
        "| api-service | image api-service | 3.2.0 | 3.2.0 | "
        "3.2.0 (prod-east), 3.1.9 (prod-west), 3.2.0 (dr) * |",
    ]


def test_json_follows_the_committed_schema(example: Path) -> None:
    done = run_fleetgen(example, "versions", "--format", "json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    validator = jsonschema_rs.validator_for(json.loads(SCHEMA.read_text()))
    assert [e.message for e in validator.iter_errors(document)] == []
    assert document["environments"] == ["dev", "staging", "prod"]
    payment = next(row for row in document["rows"] if row["app"] == "payment-service")
    assert payment["environments"][1] == {
        "environment": "prod",
        "versions": [
            {
                "version": None,
                "digest": "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
                "clusters": ["prod-east", "prod-west", "dr"],
                "range": False,
            }
        ],
        "differs_from": "staging",
    }


def test_committed_json_schema_is_current() -> None:
    """docs/versions.schema.json is what the pydantic contract says (FLEETGEN_UPDATE_GOLDEN=1
    rewrites it)."""
    if os.environ.get("FLEETGEN_UPDATE_GOLDEN"):
        SCHEMA.write_text(versions.json_schema())
    assert SCHEMA.read_text() == versions.json_schema()


def test_check_order_catches_a_version_that_skipped_an_environment(example: Path) -> None:
    # the example's prod runs payment-service by a digest staging never ran: planted hotfix
    done = run_fleetgen(example, "versions", "--check-order", "dev,staging,prod")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "order: app 'order-service' image 'order-service': staging runs 1.8.2 on staging, which "
        "dev does not run",
        "order: app 'payment-service' image 'payment-service': prod runs sha256:4f53cda18c2b… on "
        "prod-east, prod-west, dr, which staging does not run",
    ]
    assert run_fleetgen(example, "versions", "--check-order", "staging,prod").returncode == 1
    promoted = run_fleetgen(
        example, "promote", "payment-service", "--from", "staging", "--to", "prod"
    )
    assert promoted.returncode == 0, promoted.stderr
    clean = run_fleetgen(example, "versions", "--check-order", "staging,prod")
    assert (clean.returncode, clean.stderr) == (0, "")


def test_check_order_names_no_environment_twice_and_only_known_ones(example: Path) -> None:
    done = run_fleetgen(example, "versions", "--check-order", "dev,qa")
    assert (done.returncode, done.stderr) == (
        2,
        "--check-order: no such environment: qa (known: dev, staging, prod)\n",
    )
    unknown = run_fleetgen(example, "versions", "nope")
    assert (unknown.returncode, unknown.stderr) == (2, "no such app: nope\n")


def test_the_fleet_map_shows_the_matrix() -> None:
    fleet_map = (ROOT / "output" / "README.md").read_text()
    section = fleet_map[fleet_map.index("\n## Versions\n") :]
    assert "| order-service | image order-service | 1.9.0-rc.1 | 1.8.2 * | 1.8.2 |" in section


def test_a_cluster_no_layer_versions_runs_its_bases_version_in_rollout_order(
    example: Path,
) -> None:
    spec = example / "fleet.py"
    spec.write_text(
        spec.read_text()
        .replace(
            'images=[Image(name="api-service", new_name="registry.acme.example/api-service",\n'
            '                          tag="3.2.0")],',
            'images=[Image(name="api-service", new_name="registry.acme.example/api-service")],',
        )
        .replace(
            'per_label={DR: Overrides(replicas={"api-service": 1}',
            'per_cluster={"prod-west": Overrides(images=[Image(name="api-service", '
            'tag="3.1.9")])},\n            per_label={DR: Overrides(replicas={"api-service": 1}',
        )
    )
    plan = api.compile_spec(spec).plan
    (row,) = versions.rows(plan, ["api-service"])
    assert versions.cells(plan, row) == [
        "base",
        "base",
        "base (prod-east), 3.1.9 (prod-west), base (dr) *",
    ]
    done = run_fleetgen(example, "promote", "api-service", "--from", "prod", "--to", "staging")
    assert done.returncode == 2
    assert "prod's clusters run different versions of image 'api-service'" in done.stderr
    done = run_fleetgen(
        example, "promote", "api-service", "--from", "prod", "--to", "dev", "--cluster", "dr"
    )
    assert done.returncode == 0, done.stderr  # dev runs the base's version too: nothing to do
    assert done.stdout.endswith("already promoted: api-service\n")
    done = run_fleetgen(example, "promote", "api-service", "--from", "staging", "--to", "prod")
    assert done.returncode == 2
    assert "staging runs the version its base writes of image 'api-service'" in done.stderr


def test_check_order_names_a_planted_hotfix_on_one_cluster(example: Path) -> None:
    spec = example / "fleet.py"
    spec.write_text(
        spec.read_text().replace(
            'per_label={DR: Overrides(replicas={"api-service": 1}',
            'per_cluster={"prod-west": Overrides(images=[Image(name="api-service", '
            'tag="3.2.1-hotfix")])},\n'
            '            per_label={DR: Overrides(replicas={"api-service": 1}',
        )
    )
    done = run_fleetgen(example, "versions", "api-service", "--check-order", "staging,prod")
    assert (done.returncode, done.stderr) == (
        1,
        "order: app 'api-service' image 'api-service': prod runs 3.2.1-hotfix on prod-west, "
        "which staging does not run\n",
    )
