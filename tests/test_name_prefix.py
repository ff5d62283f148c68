"""Overrides(name_prefix=...): a kustomize namePrefix per layer (the golden case
``tests/cases/layer-namespace`` on both engines; ``tests/bad_inputs/name-prefix-*`` the refused
ones).

kustomize's ``PrefixSuffixTransformer`` (api/filters/prefix) prefixes every object of the
kustomization that sets ``namePrefix``, and its ``nameReference`` rules rename the references to
them it knows (a Deployment's configMapRef); replicas, configMapGenerator merges and patch targets
match an object by the names it had (``resource.Resource`` keeps its original id), so fleetgen's
replicas, config and config-hash patch keep naming the base's objects. It prefixes again at each
kustomization: a cluster overlay's prefix lands in front of its env overlay's, which is why
resolve writes a placement's prefix once (a cluster layer may only repeat its env's).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from fleetgen import api
from fleetgen.explain import explain_plan
from fleetgen.kustomize import Kustomize
from fleetgen.kustomize import build as kustomize_build
from tests.helpers import case_copy

CASE = Path(__file__).parent / "cases" / "layer-namespace"


def test_explain_names_the_layer_that_set_each_placements_prefix() -> None:
    plan = api.compile_spec(CASE / "fleet.py").plan
    prefixes = {
        placement.cluster: next(
            (value.value, value.layer) for value in placement.values if value.key == "name_prefix"
        )
        for placement in explain_plan(plan, "web").apps[0].placements
    }
    assert prefixes == {
        "staging-1": ("staging-", "per_env"),
        "prod-a": ("east-", "per_label[region=east]"),
        "prod-b": ("b-", "per_cluster"),
    }


def test_a_cluster_layer_repeating_its_envs_prefix_is_written_once(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """The env overlay has prefixed every object already: the cluster overlay writes no
    namePrefix, or kustomize would render ``staging-staging-web``."""
    repo = case_copy(
        CASE,
        tmp_path / "repo",
        (
            '"staging-1": Overrides(replicas={"web": 2})',
            '"staging-1": Overrides(replicas={"web": 2}, name_prefix="staging-")',
        ),
    )
    api.build(repo / "fleet.py")
    overlay = repo / "output/overlays/web/clusters/staging-1"
    assert "namePrefix" not in yaml.safe_load((overlay / "kustomization.yaml").read_text())
    rendered = yaml.safe_load_all(kustomize_build(overlay, kustomize))
    assert sorted(doc["metadata"]["name"] for doc in rendered) == [
        "staging-web",
        "staging-web",
        "staging-web-config",
    ]
