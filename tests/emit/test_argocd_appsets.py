"""ApplicationSets, evaluated the way Argo CD's controller evaluates them.

The cluster generators run against the emitted registrations (External Secrets' templates
rendered into the Secrets they make), the controller's implicit ``secret-type=cluster`` label
ANDed into every selector; the template (and templatePatch) is rendered per selected cluster
with a Go-template evaluator (tests/gotemplate.py). The resulting Applications must be exactly
the Plan's placements, validate against the Application CRD, and land in one rollout step.
"""

from __future__ import annotations

import posixpath
import re
import string
from collections.abc import Mapping, Sequence
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from fleetgen import (
    Environment,
    IgnoreDifference,
    Overrides,
    Rollout,
    Selector,
    Step,
    SyncPolicy,
)
from fleetgen.emit.argocd.common import go_text
from fleetgen.manifests.yamlscalar import uncarriable
from fleetgen.resolver.plan import Plan
from tests.crd_schemas import errors
from tests.emit.test_argocd import compile_fleet, example, make_fleet, web
from tests.gotemplate import render, render_tree
from tests.helpers import examples

SECRET_TYPE = {"argocd.argoproj.io/secret-type": "cluster"}
IN_CLUSTER = {
    "name": "in-cluster",
    "nameNormalized": "in-cluster",
    "server": "https://kubernetes.default.svc",
    "project": "",
}  # no Secret, no metadata
STORE = {"config": '{"bearerToken": "from-the-store"}'}  # what External Secrets fetches


def made_secret(external_secret: Mapping[str, Any]) -> dict[str, Any]:
    """The Secret External Secrets writes for ``external_secret`` (v2 templates, Replace)."""
    template = external_secret["spec"]["target"]["template"]
    meta = template["metadata"]
    return {
        "metadata": {
            "labels": render_tree(meta.get("labels", {}), STORE),
            "annotations": render_tree(meta.get("annotations", {}), STORE),
        },
        "stringData": render_tree(template["data"], STORE),
    }


def cluster_params(registrations: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The cluster generator's parameter sets, one per registration Secret."""
    params = []
    for doc in registrations:
        secret = made_secret(doc) if doc["kind"] == "ExternalSecret" else doc
        data, meta = secret["stringData"], secret["metadata"]
        metadata = {"labels": meta.get("labels", {})}
        if meta.get("annotations"):
            metadata["annotations"] = meta["annotations"]
        params.append(
            {
                "name": data["name"],
                "server": data["server"],
                "nameNormalized": re.sub(r"[^-a-z0-9.]", "-", data["name"].lower()),
                "project": data.get("project", ""),
                "metadata": metadata,
            }
        )
    return params


def selects(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Kubernetes label-selector semantics."""
    if any(labels.get(key) != value for key, value in selector.get("matchLabels", {}).items()):
        return False
    for expr in selector.get("matchExpressions", []):
        key, operator, values = expr["key"], expr["operator"], expr.get("values", [])
        present = {
            "In": labels.get(key) in values,
            "NotIn": key not in labels or labels[key] not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }
        if not present[operator]:
            return False
    return True


def merge(target: Any, patch: Any) -> Any:
    """A strategic merge patch without list merge keys: maps merge, the rest replaces."""
    if not isinstance(target, dict) or not isinstance(patch, dict):
        return patch
    merged = dict(target)
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge(merged.get(key), value)
    return merged


def generate(appset: Mapping[str, Any], clusters: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The Applications the ApplicationSet controller generates from ``appset``."""
    spec = appset["spec"]
    assert spec["goTemplate"] is True and spec["goTemplateOptions"] == ["missingkey=error"]
    applications = []
    for generator in spec["generators"]:
        ((kind, body),) = generator.items()
        assert kind == "clusters"
        selector = body.get("selector", {})
        candidates = [
            c
            for c in clusters
            if selects(selector, c["metadata"]["labels"])
            and selects({"matchLabels": SECRET_TYPE}, c["metadata"]["labels"])
        ]
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            candidates.append(IN_CLUSTER)
        for params in candidates:
            params = {
                **params,
                "values": {
                    key: render(value, params) for key, value in body.get("values", {}).items()
                },
            }
            application = render_tree(spec["template"], params)
            if "templatePatch" in spec:
                application = merge(
                    application, yaml.safe_load(render(spec["templatePatch"], params))
                )
            application["metadata"]["namespace"] = appset["metadata"]["namespace"]
            applications.append(
                {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", **application}
            )
    return applications


def applications(docs: Mapping[str, list[Any]]) -> dict[tuple[str, str], list[Any]]:
    """Generated Applications by (app, env), from every ApplicationSet of ``docs``."""
    clusters = cluster_params(
        [d for path, objs in docs.items() if path.startswith("argocd/clusters/") for d in objs]
    )
    appsets = [
        s for path, objs in docs.items() if path.startswith("argocd/applicationsets/") for s in objs
    ]
    keys = [
        (s["metadata"]["labels"]["fleetgen.io/app"], s["metadata"]["labels"]["fleetgen.io/env"])
        for s in appsets
    ]
    return {key: generate(s, clusters) for key, s in zip(keys, appsets, strict=True)}


def expected(plan: Plan) -> dict[tuple[str, str], set[tuple[str, str, str | None, str, str]]]:
    """(name, server, namespace, path, manifest-generate-paths) of every placement (its
    `Placement.namespace`; none for an App(namespace=None)); Argo CD refreshes an Application on a
    commit that touches one of those paths (util/app/path ``AppFilesHaveChanged``)."""
    fleet = plan.fleet
    servers = {c.name: c.server.rstrip("/") for c in fleet.clusters}
    env_overlays = {(o.app, o.env): o for o in plan.env_overlays}
    found: dict[tuple[str, str], set[tuple[str, str, str | None, str, str]]] = {}
    for p in plan.on("argocd").placements:
        if p.chart is not None:  # see tests/test_charts_engines.py
            continue
        env_overlay = env_overlays[p.app, p.env]
        overlay = posixpath.join(fleet.output_dir, p.overlay)
        layers = [overlay, posixpath.join(fleet.output_dir, env_overlay.path), env_overlay.base]
        layers += [*p.settings.resources, *p.settings.components]  # what layers add
        paths = ";".join("/" + layer for layer in dict.fromkeys(layers))
        found.setdefault((p.app, p.env), set()).add(
            (f"{p.app}-{p.cluster}", servers[p.cluster], p.namespace, overlay, paths)
        )
    return found


def summary(generated: dict[tuple[str, str], list[Any]]) -> dict[tuple[str, str], set[Any]]:
    return {
        key: {
            (
                a["metadata"]["name"],
                a["spec"]["destination"]["server"],
                a["spec"]["destination"].get("namespace"),
                a["spec"]["source"]["path"],
                a["metadata"]["annotations"]["argocd.argoproj.io/manifest-generate-paths"],
            )
            for a in apps
        }
        for key, apps in generated.items()
        if "path" in apps[0]["spec"]["source"] and "helm" not in apps[0]["spec"]["source"]
    }


def assert_generates_the_plan(plan: Plan, docs: Mapping[str, list[Any]]) -> None:
    generated = applications(docs)
    assert summary(generated) == expected(plan)
    names = [a["metadata"]["name"] for apps in generated.values() for a in apps]
    assert len(names) == len(set(names)) == len(plan.on("argocd").placements)  # charts too
    for apps in generated.values():
        for application in apps:
            assert errors(application) == [], application["metadata"]["name"]
    assert_every_app_in_one_step(plan, docs, generated)


def assert_every_app_in_one_step(
    plan: Plan, docs: Mapping[str, list[Any]], generated: dict[tuple[str, str], list[Any]]
) -> None:
    waves = {p.cluster: p.wave for p in plan.placements}
    for path, objs in docs.items():
        for appset in objs if path.startswith("argocd/applicationsets/") else ():
            labels = appset["metadata"]["labels"]
            apps = generated[labels["fleetgen.io/app"], labels["fleetgen.io/env"]]
            steps = appset["spec"].get("strategy", {}).get("rollingSync", {}).get("steps")
            if steps is None:
                assert all(
                    waves[a["metadata"]["labels"]["fleetgen.io/cluster"]] is None for a in apps
                )
                continue
            for application in apps:
                matching = [
                    step for step in steps if selects(step, application["metadata"]["labels"])
                ]
                assert len(matching) == 1, application["metadata"]["name"]
                cluster = application["metadata"]["labels"]["fleetgen.io/cluster"]
                assert matching[0]["matchExpressions"][0]["values"] == [str(waves[cluster])]
            assert all(
                any(selects(step, a["metadata"]["labels"]) for a in apps) for step in steps
            ), "a step that selects none of this app's clusters"


def test_example_applicationsets_generate_exactly_the_placements() -> None:
    from fleetgen.pipeline import api
    from tests.emit.test_argocd import ROOT

    assert_generates_the_plan(api.compile_spec(ROOT / "fleet.py").plan, example())


def test_generators_group_clusters_by_overlay_and_sync_policy() -> None:
    options = ["ServerSideApply=true", 'Odd={{"a\\b"}}']  # escaped through values and patch
    special = Overrides(sync=SyncPolicy(prune=True, sync_options=options))
    ignored = IgnoreDifference(
        kind="Deployment",
        jq_path_expressions=['.spec.template.spec.containers[] | select(.name == "{{ x }}")'],
    )
    fleet = make_fleet(
        output_dir="gen/{{ .x }}{",
        apps=[
            web(
                per_cluster={"prod-b": Overrides(replicas={"web": 1}), "prod-c": special},
                per_env={"dev": Overrides(sync=SyncPolicy(self_heal=True))},
                ignore_differences=[ignored],
            ),
            web(name="api", path="apps/api/base", targets=Selector(envs=["prod"])),
        ],
    )
    plan, docs = compile_fleet(fleet)
    assert_generates_the_plan(plan, docs)
    prod = docs["argocd/applicationsets/web.yaml"][1]["spec"]
    assert [
        g["clusters"]["selector"]["matchExpressions"][0]["values"] for g in prod["generators"]
    ] == [["prod-a"], ["prod-b"], ["prod-c"]]
    by_name = {a["metadata"]["name"]: a for a in applications(docs)["web", "prod"]}
    assert by_name["web-prod-b"]["spec"]["ignoreDifferences"] == [
        {"group": "", "kind": "Deployment", "jqPathExpressions": ignored.jq_path_expressions}
    ]
    assert by_name["web-prod-a"]["spec"]["syncPolicy"] == {
        "automated": {"prune": False, "selfHeal": False},
        "syncOptions": ["CreateNamespace=true", "RespectIgnoreDifferences=true"],
    }
    assert by_name["web-prod-c"]["spec"]["syncPolicy"] == {
        "automated": {"prune": True, "selfHeal": False},
        "syncOptions": ["CreateNamespace=true", *options, "RespectIgnoreDifferences=true"],
    }
    (api_prod,) = docs["argocd/applicationsets/api.yaml"]
    assert "templatePatch" not in api_prod["spec"]
    assert len(api_prod["spec"]["strategy"]["rollingSync"]["steps"]) == 3


def test_a_rollout_step_without_the_apps_clusters_is_left_out() -> None:
    plan, docs = compile_fleet(
        make_fleet(apps=[web(targets=Selector(clusters=["prod-a", "prod-c"]))])
    )
    (appset,) = docs["argocd/applicationsets/web.yaml"]
    steps = appset["spec"]["strategy"]["rollingSync"]["steps"]
    assert [(s["matchExpressions"][0]["values"], s["maxUpdate"]) for s in steps] == [
        (["1"], 1),
        (["3"], "50%"),
    ]
    assert_generates_the_plan(plan, docs)


def test_an_empty_catch_all_step_emits_no_rolling_sync_step() -> None:
    """The environment's only cluster is its canary; the catch-all step has no cluster yet."""
    prod = Environment(
        name="prod",
        sync=SyncPolicy(automated=True),
        rollout=Rollout(steps=[Step(match_labels={"ring": "canary"}), Step()]),
    )
    fleet = make_fleet(
        environments=[make_fleet().environments[0], prod],
        clusters=make_fleet().clusters[:2],
        apps=[web()],
    )
    plan, docs = compile_fleet(fleet)
    assert plan.waves["prod"] == (("prod-a",), ())
    steps = docs["argocd/applicationsets/web.yaml"][1]["spec"]["strategy"]["rollingSync"]["steps"]
    assert [s["matchExpressions"][0]["values"] for s in steps] == [["1"]]
    assert_generates_the_plan(plan, docs)


def test_manual_environment_turns_automated_sync_off() -> None:
    """A manual environment's Applications carry ``automated: {enabled: false}``, not no
    ``automated``: the controller's ``autoSync`` returns early unless
    ``SyncPolicy.IsAutomatedSyncEnabled``, false when ``Enabled`` is set false (Argo CD 3.3 and
    3.6), while the root's server-side apply of the ApplicationSet leaves an ``automated`` it
    stops sending where argocd-applicationset-controller co-owns the field."""
    fleet = make_fleet(environments=[Environment(name="dev"), make_fleet().environments[1]])
    _, docs = compile_fleet(fleet)
    assert [a["spec"]["syncPolicy"] for a in applications(docs)["web", "dev"]] == [
        {
            "automated": {"enabled": False},
            "syncOptions": ["CreateNamespace=true", "RespectIgnoreDifferences=true"],
        }
    ]


LABEL_VALUE = st.from_regex(r"\A([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\Z")
TRICKY = st.sampled_from(
    [
        "{{",
        "}}",
        "{",
        "}",
        '"',
        "'",
        "`",
        "\n",
        "\\",
        "{{-",
        " -}}",
        "/*",
        "{{ .name }}",
        '{{ "x" }}',
        "\t",
        " ",
    ]
)
ANNOTATION = (
    st.lists(TRICKY | st.text(string.printable + "éø€😀", max_size=3), max_size=12)
    .map("".join)
    .filter(lambda s: uncarriable(s) is None)
)


@settings(
    max_examples=examples(40, 300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(note=ANNOTATION, runbook=ANNOTATION, team=LABEL_VALUE)
def test_user_strings_reach_the_rendered_objects_unchanged(
    note: str, runbook: str, team: str
) -> None:
    base = make_fleet()
    clusters = [
        c.model_copy(update={"annotations": {"acme.io/runbook": runbook}}) for c in base.clusters
    ]
    app = web(
        annotations={"acme.io/note": note},
        labels={"acme.io/team": team},
        per_cluster={"prod-b": Overrides(replicas={"web": 1})},
    )
    _, docs = compile_fleet(make_fleet(clusters=clusters, apps=[app]))
    for apps in applications(docs).values():
        for application in apps:
            assert application["metadata"]["annotations"]["acme.io/note"] == note
            assert application["metadata"]["labels"]["acme.io/team"] == team
    for path, objs in docs.items():
        for obj in objs if path.startswith("argocd/clusters/") else ():
            secret = made_secret(obj) if obj["kind"] == "ExternalSecret" else obj
            assert secret["metadata"]["annotations"]["acme.io/runbook"] == runbook


@given(text=ANNOTATION | st.text(), name=st.text(string.ascii_letters, min_size=1))
def test_go_text_renders_to_itself_even_before_an_action(text: str, name: str) -> None:
    assert render(go_text(text) + "{{ .name }}" + go_text(text), {"name": name}) == (
        text + name + text
    )
