"""Property: any valid fleet — random names, labels, selectors, layers, environments on both
engines, rollouts, kustomize and chart apps (the echo test chart kept in the repository), Flux per
cluster or from a hub — builds; the build is deterministic; every overlay builds with real
kustomize; every placement lands on exactly one engine, the one the engine rule picks.

Fleets are drawn as fleet.py text (``from fleetgen import *``) and built through `api.build`, the
path ``fleetgen build`` takes. The expected placements and engines are computed here, from the
drawn data, independently of fleetgen's resolver: a cluster is selected when its environment and
labels match the app's targets; the engine is the app's, else the cluster's, else its
environment's (DESIGN §2a).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings, strategies as st

from fleetgen.pipeline import api
from fleetgen.tools.kustomize import Kustomize, build_many
from fleetgen.util.templating import Call, py_literal
from tests.helpers import examples, tree
from tests.test_engines import argocd_pairs, flux_pairs

BASE = Path(__file__).parent / "cases" / "layering" / "apps" / "web" / "base"
ECHO = Path(__file__).parent / "charts" / "echo"
NAME = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True).filter(lambda n: n != "clusters")
LABEL_KEYS = ("region", "tier", "example.com/team")
LABEL_VALUE = st.from_regex(r"[a-z0-9]([a-z0-9._-]{0,6}[a-z0-9])?", fullmatch=True)
TAG = st.from_regex(r"[0-9]{1,2}\.[0-9]{1,2}(-rc[0-9])?", fullmatch=True)
ENGINES = ("argocd", "flux")


@dataclass
class Drawn:
    """A drawn fleet: its fleet.py text and the placements it must produce."""

    source: str
    expected: dict[tuple[str, str], str] = field(default_factory=dict)  # (app, cluster) -> engine


@dataclass
class ClusterDraw:
    name: str
    env: str
    labels: dict[str, str]
    engine: str | None


def _labels(draw: st.DrawFn) -> dict[str, str]:
    keys = draw(st.lists(st.sampled_from(LABEL_KEYS), unique=True, max_size=2))
    return {key: draw(LABEL_VALUE) for key in keys}


def _environments(draw: st.DrawFn, names: list[str]) -> tuple[list[Call], list[ClusterDraw]]:
    """Environments (each with its engine; a rollout only on Argo CD, whose ApplicationSets order
    waves) and their 1-3 clusters."""
    envs, clusters = [], []
    for env in names:
        engine = draw(st.sampled_from(ENGINES))
        rollout = engine == "argocd" and draw(st.booleans())
        kwargs: dict[str, object] = {"name": env, "engine": engine}
        if rollout:
            kwargs["sync"] = Call("SyncPolicy", {"automated": True})
            kwargs["rollout"] = Call(
                "Rollout",
                {
                    "steps": [
                        Call("Step", {"match_labels": {"ring": "canary"}, "max_update": 1}),
                        Call("Step"),
                    ]
                },
            )
        elif draw(st.booleans()):
            kwargs["sync"] = Call("SyncPolicy", {"automated": True, "prune": True})
        if draw(st.booleans()):
            kwargs["common_labels"] = {"example.com/env": env}
        envs.append(Call("Environment", kwargs))
        names_here = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
        for index, name in enumerate(names_here):
            labels = _labels(draw) | ({"ring": "canary"} if rollout and index == 0 else {})
            # In a rollout environment every cluster keeps the environment's engine.
            own = None if rollout else draw(st.sampled_from((None, *ENGINES)))
            clusters.append(ClusterDraw(f"{env}-{name}", env, labels, own))
    return envs, clusters


def _selects(targets: dict[str, object], cluster: ClusterDraw) -> bool:
    envs = targets.get("envs")
    labels = targets.get("match_labels", {})
    assert isinstance(labels, dict)
    return (envs is None or cluster.env in envs) and all(
        cluster.labels.get(key) == value for key, value in labels.items()
    )


def _app(
    draw: st.DrawFn,
    name: str,
    env_names: list[str],
    clusters: list[ClusterDraw],
    engine: str | None,
) -> tuple[Call, list[ClusterDraw]]:
    """An app on the shared base, its targets, and layers only where it is placed."""
    targets: dict[str, object] = {}
    if draw(st.booleans()):
        targets["envs"] = draw(st.lists(st.sampled_from(env_names), min_size=1, unique=True))
    if draw(st.booleans()):
        labelled = [c for c in clusters if c.labels]
        if labelled:
            key, value = draw(
                st.sampled_from(sorted((k, v) for c in labelled for k, v in c.labels.items()))
            )
            targets["match_labels"] = {key: value}
    placed = [c for c in clusters if _selects(targets, c)]
    if not placed:  # a selector that matches nothing is a spec error: take every cluster
        targets, placed = {}, clusters
    kwargs: dict[str, object] = {"name": name, "project": "apps", "namespace": f"ns-{name}"}
    if targets:
        kwargs["targets"] = Call("Selector", targets)
    if engine is not None:
        kwargs["engine"] = engine
    if draw(st.booleans()):
        return _chart_app(draw, kwargs, placed), placed
    kwargs["path"] = "apps/web/base"
    if draw(st.booleans()):
        kwargs["images"] = [Call("Image", {"name": "web", "tag": draw(TAG)})]
    if draw(st.booleans()):
        kwargs["config"] = {"web-config": {"LEVEL": "app", "APP": name}}
    if draw(st.booleans()):
        kwargs["common_labels"] = {"example.com/app": name}
    per_env = {}
    for env in sorted({c.env for c in placed}):
        if draw(st.booleans()):
            per_env[env] = Call(
                "Overrides",
                {
                    "images": [
                        Call(
                            "Image",
                            {
                                "name": "web",
                                "new_name": f"registry.example.com/{env}",
                                "tag": draw(TAG),
                            },
                        )
                    ],
                    "replicas": {"web": draw(st.integers(1, 5))},
                },
            )
    if per_env:
        kwargs["per_env"] = per_env
    per_cluster = {}
    for cluster in placed:
        if draw(st.booleans()):
            per_cluster[cluster.name] = Call(
                "Overrides",
                {
                    "config": {"web-config": {"LEVEL": "cluster", "CLUSTER": cluster.name}},
                    "common_annotations": {"example.com/cluster": cluster.name},
                },
            )
    if per_cluster:
        kwargs["per_cluster"] = per_cluster
    return Call("App", kwargs), placed


def _chart_app(draw: st.DrawFn, kwargs: dict[str, object], placed: list[ClusterDraw]) -> Call:
    """A chart app on the echo chart, its values set at the app, environment and cluster
    layers (a chart app takes values, not kustomize settings)."""
    kwargs["chart"] = Call("HelmChart", {"path": "charts/echo"})
    if draw(st.booleans()):
        kwargs["values"] = {"image": {"tag": draw(TAG)}}
    per_env = {
        env: Call("Overrides", {"values": {"replicaCount": draw(st.integers(1, 5))}})
        for env in sorted({c.env for c in placed})
        if draw(st.booleans())
    }
    per_cluster = {
        c.name: Call(
            "Overrides",
            {"values": {"resources": {"limits": {"memory": f"{draw(st.integers(1, 9))}Gi"}}}},
        )
        for c in placed
        if draw(st.booleans())
    }
    return Call(
        "App",
        {
            **kwargs,
            **({"per_env": per_env} if per_env else {}),
            **({"per_cluster": per_cluster} if per_cluster else {}),
        },
    )


@st.composite
def fleets(draw: st.DrawFn) -> Drawn:
    env_names = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
    envs, clusters = _environments(draw, env_names)
    rollouts = any("rollout" in env.kwargs for env in envs)
    env_engine = {str(env.kwargs["name"]): str(env.kwargs["engine"]) for env in envs}
    apps, expected = [], {}
    for name in draw(st.lists(NAME, min_size=1, max_size=3, unique=True)):
        # An app's own engine would split a rollout environment across engines.
        engine = None if rollouts else draw(st.sampled_from((None, *ENGINES)))
        app, placed = _app(draw, name, env_names, clusters, engine)
        apps.append(app)
        for cluster in placed:
            expected[(name, cluster.name)] = engine or cluster.engine or env_engine[cluster.env]
    fleet = Call(
        "Fleet",
        {
            "name": draw(NAME),
            "repo": "https://git.example.com/fleet.git",
            "engines": list(ENGINES),
            "default_credentials": Call(
                "ExternalSecretRef", {"store": "vault", "key": "clusters/{cluster}"}
            ),
            "common_labels": draw(st.sampled_from([{}, {"example.com/fleet": "yes"}])),
            "environments": envs,
            "clusters": [
                Call(
                    "Cluster",
                    {
                        "name": c.name,
                        "env": c.env,
                        "server": f"https://{c.name}.k8s.example.com:6443",
                        "labels": c.labels,
                        **({"engine": c.engine} if c.engine else {}),
                    },
                )
                for c in clusters
            ],
            "projects": [Call("Project", {"name": "apps", "namespaces": ["ns-*"]})],
            "apps": apps,
            **(
                {
                    "flux": Call(
                        "FluxOptions",
                        {"mode": "hub", "hub": draw(st.sampled_from([c.name for c in clusters]))},
                    )
                }
                if draw(st.booleans())
                else {}
            ),
        },
    )
    return Drawn(f"from fleetgen import *  # noqa: F403\n\nfleet = {py_literal(fleet)}\n", expected)


def drawn_repo(tmp_path: Path, source: str) -> Path:
    """A repository (again, for each example) holding the shared base, the echo chart and
    ``source`` as fleet.py; the spec's path."""
    repo = tmp_path / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(BASE, repo / "apps/web/base")
    shutil.copytree(ECHO, repo / "charts/echo")
    (repo / "fleet.py").write_text(source)
    return repo / "fleet.py"


@settings(
    max_examples=examples(12, 60),
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(drawn=fleets())
def test_every_valid_fleet_builds_deterministically_and_runs_on_one_engine(
    drawn: Drawn, tmp_path: Path, kustomize: Kustomize
) -> None:
    spec = drawn_repo(tmp_path, drawn.source)
    repo = spec.parent

    first = api.build(spec, use_cache=False)
    second = api.build(spec, repo / "again", use_cache=False)
    assert tree(repo / "output") == tree(repo / "again"), drawn.source

    compiled = api.compile_spec(spec)
    plan = compiled.plan
    # --hypothesis-show-statistics shows how often each kind of fleet was drawn.
    event(f"Flux {plan.fleet.flux.mode}")
    event("chart apps" if any(p.chart for p in plan.placements) else "no chart app")
    event(
        "chart apps on Flux"
        if any(p.chart and p.engine == "flux" for p in plan.placements)
        else "no chart app on Flux"
    )
    engines = {(p.app, p.cluster): p.engine for p in plan.placements}
    assert len(engines) == len(plan.placements)  # no (app, cluster) placed twice
    assert engines == drawn.expected, drawn.source
    rendered = compiled.rendered
    argocd, flux = argocd_pairs(rendered), flux_pairs(rendered)
    assert not argocd & flux
    assert argocd == {pair for pair, engine in engines.items() if engine == "argocd"}
    assert flux == {pair for pair, engine in engines.items() if engine == "flux"}

    overlays = sorted(p.parent for p in (repo / "output/overlays").rglob("kustomization.yaml"))
    assert {p.overlay for p in plan.placements if p.chart is None} <= {
        path.relative_to(repo / "output").as_posix() for path in overlays
    }
    built = build_many(overlays, kustomize=kustomize)
    assert all("kind: Deployment" in text for text in built.values())
    assert second.placements == first.placements == len(plan.placements)
