"""Property: any config value or label written in fleet.py reaches the rendered ConfigMap exactly,
through fleet.py → writer → real kustomize."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project, resolve
from fleetgen.emit import emit
from fleetgen.inputs.reading import filesystem_reader
from fleetgen.inputs.workspace import scan
from fleetgen.tools.kustomize import Kustomize, build
from fleetgen.version import VERSION
from fleetgen.write import writer
from tests.helpers import examples

CASE = Path(__file__).parent / "cases" / "layering"
# Heavy on the characters YAML, kustomize and Go templates treat specially.
ALPHABET = st.sampled_from(
    list(" \t\n\"'#:-{}[]$,&*!|>%@`=~?.+0123456789eEoOxXbByYnN_\\é日")
) | st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))
TEXT = st.text(ALPHABET, max_size=24)
# Values kustomize would unquote, values YAML would retype, and anything else.
VALUES = (
    TEXT
    | st.builds(lambda q, t: q + t + q, st.sampled_from(["'", '"']), TEXT)
    | st.sampled_from(["no", "y", "0o17", "08", "1e3", "12:30", "~", "", "{{ .x }}", "${X}"])
)


def fleet_with(values: dict[str, str]) -> Fleet:
    return Fleet(
        name="roundtrip",
        repo="https://git.example.com/roundtrip.git",
        default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
        environments=[Environment(name="dev")],
        clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example.com")],
        projects=[Project(name="web", namespaces=["web"])],
        apps=[
            App(
                name="web",
                project="web",
                namespace="web",
                path="apps/web/base",
                config={"web-config": values, "fresh-config": values},
                common_annotations={"example.com/value": values.get("K0", "")},
            )
        ],
    )


@settings(
    max_examples=examples(12, 60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(strings=st.lists(VALUES, min_size=1, max_size=20))
def test_config_values_survive_the_writer_and_kustomize(
    strings: list[str], tmp_path: Path, kustomize: Kustomize
) -> None:
    repo = tmp_path / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(CASE / "apps", repo / "apps")
    values = {f"K{i}": text for i, text in enumerate(strings)}
    fleet = fleet_with(values)
    plan = resolve(fleet, scan(filesystem_reader(repo), ["apps/web/base"]))
    writer.write(repo / "output", writer.render(emit(plan)), VERSION)
    docs = yaml.safe_load_all(build(repo / "output/overlays/web/dev", kustomize))
    configmaps = {
        d["metadata"]["name"].split("-config")[0]: d for d in docs if d["kind"] == "ConfigMap"
    }
    assert {k: v for k, v in configmaps["web"]["data"].items() if k.startswith("K")} == values
    assert configmaps["fresh"]["data"] == values
    assert configmaps["fresh"]["metadata"]["annotations"] == {"example.com/value": values["K0"]}
