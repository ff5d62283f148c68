"""Chart apps on both engines: the objects each emits, and what Helm renders from them.

The renders use Helm's Go SDK in-process (helm-python-sdk): the values each engine would hand to
Helm are taken from the emitted objects (Argo CD: the ApplicationSet expanded per cluster, its
Go templates evaluated; Flux: the HelmRelease's ``values`` or its ``valuesFrom`` ConfigMap, parsed
by Helm's values reader) and must render exactly what the spec implies.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from fleetgen import (
    App,
    ChartVerify,
    Environment,
    HelmChart,
    IgnoreDifference,
    Image,
    OIDCIdentity,
    Overrides,
    Patch,
    Project,
    SyncPolicy,
)
from fleetgen.emit import argocd, flux
from fleetgen.emit.flux.charts import KEEP, KEEP_PATCH
from fleetgen.errors import SpecError
from fleetgen.inputs.reading import filesystem_lister, filesystem_reader
from fleetgen.inputs.workspace import Workspace, scan
from fleetgen.resolver import resolve
from fleetgen.resolver.plan import Plan
from fleetgen.tools.helm import parse_values, render_chart
from fleetgen.tools.kustomize import Kustomize, build
from fleetgen.write import writer
from tests.crd_schemas import errors
from tests.emit.test_argocd import WORKSPACE as BASES, make_fleet
from tests.emit.test_argocd_appsets import applications

ROOT = Path(__file__).resolve().parent.parent
CHART = "tests/charts/echo"
WORKSPACE = Workspace(
    BASES.bases, scan(filesystem_reader(ROOT), [], [CHART], filesystem_lister(ROOT)).charts
)
TRICKY = {
    "template": "{{ .Values.secretName }}",
    "shell": "${HOME}",
    "word": "no",
    "number_text": "1e3",
}
ECHO_VALUES = {
    "replicaCount": 2,
    "float": 1e3,
    "strings": TRICKY,
    "image": {"tag": "2.0"},
    "resources": {"limits": {"cpu": "1"}},
}


def echo(**fields: Any) -> App:
    """A chart app on every cluster: dev-1 and the prod clusters of `make_fleet`."""
    return App(
        **(
            {
                "name": "echo",
                "project": "web",
                "namespace": "web",
                "chart": HelmChart(path=CHART),
                "values": ECHO_VALUES,
            }
            | fields
        )
    )


def remote(repo: str, **fields: Any) -> App:
    return App(
        **(
            {
                "name": "certs",
                "project": "web",
                "namespace": "web",
                "chart": HelmChart(repo=repo, name="cert-manager", version="v1.16.2"),
                "values": {"crds": {"enabled": True}},
            }
            | fields
        )
    )


def emitted(plan: Plan) -> dict[str, list[Any]]:
    """argocd/ and flux/ documents as written to disk (YAML read back)."""
    assert argocd.check(plan) == [] and flux.check(plan) == []
    rendered = writer.render([*argocd.emit(plan), *flux.emit(plan)])
    return {
        path: [d for d in yaml.safe_load_all(data) if d]
        for path, data in rendered.items()
        if path.endswith(".yaml")
    }


def compile_apps(*apps: App, **fleet: Any) -> tuple[Plan, dict[str, list[Any]]]:
    plan = resolve(make_fleet(apps=list(apps), **fleet), WORKSPACE)
    return plan, emitted(plan)


def without_nulls(value: Any) -> Any:
    """``value`` with its null map entries dropped, as the objects' way to Helm drops them:
    Argo CD's ApplicationSet rendering (applicationset/utils deeplyReplaceWithFilter skips nil
    map values) and server-side apply of a custom resource (fluxcd/kustomize-controller#372)."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    return [without_nulls(v) for v in value] if isinstance(value, list) else value


def argo_values(application: dict[str, Any]) -> dict[str, Any]:
    """What Argo CD gives Helm: valuesObject, or the values text (as ``helm template -f``)."""
    helm = application["spec"]["source"]["helm"]
    assert helm["releaseName"] == "echo"
    assert not ("values" in helm and "valuesObject" in helm)
    if "valuesObject" in helm:
        return without_nulls(helm["valuesObject"])  # type: ignore[no-any-return]
    return parse_values(helm["values"])


def flux_releases(
    docs: dict[str, list[Any]], app: str = "echo"
) -> dict[str, tuple[dict[str, Any], Any]]:
    """cluster -> (HelmRelease of ``app``, the values it gives Helm)."""
    found = {}
    for path, objs in docs.items():
        if not path.startswith(("flux/clusters/", "flux/releases/")):
            continue
        configmaps = {o["metadata"]["name"]: o for o in objs if o["kind"] == "ConfigMap"}
        for obj in objs:
            if obj["kind"] != "HelmRelease" or obj["metadata"]["name"] != app:
                continue
            spec, values = obj["spec"], without_nulls(obj["spec"].get("values", {}))
            for ref in spec.get("valuesFrom", []):
                assert ref["kind"] == "ConfigMap" and "targetPath" not in ref
                values = parse_values(configmaps[ref["name"]]["data"][ref["valuesKey"]])
            found[obj["metadata"]["labels"]["fleetgen.io/cluster"]] = (obj, values)
    return found


def rendered_values(values: dict[str, Any]) -> Any:
    """The effective values the echo chart rendered (its ConfigMap prints them as JSON)."""
    docs = render_chart(ROOT / CHART, values, release="echo", namespace="web")
    (configmap,) = (d for d in docs if d["kind"] == "ConfigMap")
    return json.loads(configmap["data"]["values.json"])


# What the spec implies: the chart's defaults, the app's values, prod's per_env values, and on
# prod-b a per_cluster None that removes image.tag (a chart default the app overrode) and the
# whole resources map.
DEV = {
    "replicaCount": 2,
    "float": 1000,
    "strings": TRICKY,
    "image": {
        "repository": "registry.example.com/echo",
        "tag": "2.0",
        "pullPolicy": "IfNotPresent",
    },
    "resources": {"limits": {"memory": "128Mi", "cpu": "1"}},
}
PROD = {**DEV, "replicaCount": 5}
PROD_B = {
    **PROD,
    "image": {"repository": "registry.example.com/echo", "pullPolicy": "IfNotPresent"},
}
del PROD_B["resources"]
EXPECTED = {"dev-1": DEV, "prod-a": PROD, "prod-b": PROD_B, "prod-c": PROD}


def layered_echo() -> App:
    return echo(
        per_env={"prod": Overrides(values={"replicaCount": 5})},
        per_cluster={"prod-b": Overrides(values={"image": {"tag": None}, "resources": None})},
    )


def test_both_engines_give_helm_the_values_the_spec_implies() -> None:
    plan, docs = compile_apps(layered_echo())
    argo = {
        a["spec"]["destination"]["server"]: a for apps in applications(docs).values() for a in apps
    }
    servers = {c.name: c.server.rstrip("/") for c in plan.fleet.clusters}
    releases = flux_releases(docs)
    assert set(releases) == set(EXPECTED)
    for cluster, expected in EXPECTED.items():
        assert rendered_values(argo_values(argo[servers[cluster]])) == expected, cluster
        assert rendered_values(releases[cluster][1]) == expected, cluster
        deployment = render_chart(ROOT / CHART, releases[cluster][1], "echo", "web")
        assert deployment == render_chart(
            ROOT / CHART, argo_values(argo[servers[cluster]]), "echo", "web"
        )


def test_a_document_with_a_null_travels_as_text_on_both_engines() -> None:
    _, docs = compile_apps(layered_echo())
    prod = [a for (app, env), apps in applications(docs).items() if env == "prod" for a in apps]
    by_name = {a["metadata"]["name"]: a["spec"]["source"]["helm"] for a in prod}
    # prod's clusters differ (prod-b removes keys): every one reads its text from the generator.
    assert all("values" in helm and "valuesObject" not in helm for helm in by_name.values())
    (dev,) = applications(docs)[("echo", "dev")]
    assert "valuesObject" in dev["spec"]["source"]["helm"]
    releases = flux_releases(docs)
    assert "valuesFrom" in releases["prod-b"][0]["spec"]
    assert "values" not in releases["prod-b"][0]["spec"]
    assert "valuesFrom" not in releases["prod-a"][0]["spec"]


def test_every_chart_object_validates_on_the_newest_and_the_oldest_release() -> None:
    apps = [
        layered_echo(),
        remote("https://charts.jetstack.io"),
        remote("oci://quay.io/jetstack/charts", name="certs-oci"),
    ]
    _, docs = compile_apps(*apps)
    kinds = set()
    for path, objs in docs.items():
        for obj in objs:
            kinds.add(obj["kind"])
            assert errors(obj) == [], (path, obj["kind"], obj["metadata"]["name"])
    for generated in applications(docs).values():
        for application in generated:
            assert errors(application) == [], application["metadata"]["name"]
    assert {"HelmRelease", "HelmRepository", "OCIRepository", "ConfigMap"} <= kinds


def test_chart_sources_as_each_controller_reads_them() -> None:
    _, docs = compile_apps(
        remote("oci://quay.io/jetstack/charts"),
        remote("https://charts.jetstack.io", name="certs-http"),
        echo(),
    )
    apps = applications(docs)
    # Argo CD takes an OCI chart repository without the scheme (util/helm IsHelmOciRepo: a
    # repoURL with no host part is OCI).
    source = apps[("certs", "dev")][0]["spec"]["source"]
    assert source == {
        "repoURL": "quay.io/jetstack/charts",
        "chart": "cert-manager",
        "targetRevision": "v1.16.2",
        "helm": {"releaseName": "certs", "valuesObject": {"crds": {"enabled": True}}},
    }
    assert apps[("certs-http", "dev")][0]["spec"]["source"]["repoURL"] == (
        "https://charts.jetstack.io"
    )
    local = apps[("echo", "dev")][0]
    assert local["spec"]["source"]["path"] == CHART
    assert local["metadata"]["annotations"]["argocd.argoproj.io/manifest-generate-paths"] == (
        "/" + CHART
    )
    (project,) = docs["argocd/projects/web.yaml"]
    assert project["spec"]["sourceRepos"] == [
        "https://git.example.com/fleet.git",
        "https://charts.jetstack.io",
        "quay.io/jetstack/charts",
    ]
    dev = {
        (o["kind"], o["metadata"]["name"]): o
        for o in docs["flux/clusters/dev-1/kustomizations.yaml"]
    }
    oci = dev[("OCIRepository", "certs")]["spec"]
    assert (oci["url"], oci["ref"]) == (
        "oci://quay.io/jetstack/charts/cert-manager",
        {"tag": "v1.16.2"},
    )
    assert dev[("HelmRelease", "certs")]["spec"]["chartRef"] == {
        "kind": "OCIRepository",
        "name": "certs",
    }
    http = dev[("HelmRelease", "certs-http")]["spec"]
    assert http["chart"]["spec"] == {
        "chart": "cert-manager",
        "version": "v1.16.2",
        "sourceRef": {"kind": "HelmRepository", "name": "certs-http"},
    }
    assert dev[("HelmRepository", "certs-http")]["spec"]["url"] == "https://charts.jetstack.io"
    echo_spec = dev[("HelmRelease", "echo")]["spec"]
    # source-controller buildFromTarballArtifact appends the commit to the chart version
    # (``VersionMetadata``) under Revision, so every commit would upgrade the release; under
    # ChartVersion the chart is rebuilt when its Chart.yaml version changes. The version,
    # which only ``buildFromHelmRepository`` reads, makes a bump a new HelmRelease generation.
    assert echo_spec["chart"]["spec"] == {
        "chart": "./" + CHART,
        "version": "0.1.0",
        "reconcileStrategy": "ChartVersion",
        "sourceRef": {"kind": "GitRepository", "name": "flux-system", "namespace": "flux-system"},
    }
    assert (
        echo_spec["releaseName"],
        echo_spec["targetNamespace"],
        echo_spec["install"]["crds"],
        echo_spec["upgrade"]["crds"],
    ) == ("echo", "web", "Create", "CreateReplace")


def test_chart_version_per_environment_reaches_both_engines() -> None:
    app = remote(
        "https://charts.jetstack.io",
        per_env={"prod": Overrides(chart_version="v1.17.0")},
        per_cluster={"prod-b": Overrides(chart_version="v1.17.1")},
    )
    _, docs = compile_apps(app)
    revisions = {
        a["metadata"]["name"]: a["spec"]["source"]["targetRevision"]
        for apps in applications(docs).values()
        for a in apps
    }
    assert revisions == {
        "certs-dev-1": "v1.16.2",
        "certs-prod-a": "v1.17.0",
        "certs-prod-b": "v1.17.1",
        "certs-prod-c": "v1.17.0",
    }
    versions = {
        cluster: release["spec"]["chart"]["spec"]["version"]
        for cluster, (release, _) in flux_releases(docs, "certs").items()
    }
    assert versions == {
        "dev-1": "v1.16.2",
        "prod-a": "v1.17.0",
        "prod-b": "v1.17.1",
        "prod-c": "v1.17.0",
    }


def test_deletion_sync_and_drift_map_as_for_kustomizations() -> None:
    app = echo(
        ignore_differences=[
            IgnoreDifference(group="apps", kind="Deployment", json_pointers=["/spec/replicas"])
        ]
    )
    manual = [
        Environment(name="dev", sync=SyncPolicy(automated=False)),
        Environment(name="prod", sync=SyncPolicy(automated=True)),
    ]
    _, docs = compile_apps(app, environments=manual)
    releases = flux_releases(docs)
    dev, prod = releases["dev-1"][0]["spec"], releases["prod-a"][0]["spec"]
    assert dev["suspend"] is True and "suspend" not in prod
    assert prod["driftDetection"] == {
        "mode": "enabled",
        "ignore": [
            {"paths": ["/spec/replicas"], "target": {"group": "apps", "kind": "Deployment"}}
        ],
    }
    # helm-controller's kustomize post-renderer (internal/postrender/kustomize.go) runs these
    # patches through krusty; a target kind ".*" selects every object (checked with kustomize
    # in test_keep_patch_annotates_every_object).
    (patch,) = prod["postRenderers"][0]["kustomize"]["patches"]
    assert yaml.safe_load(patch["patch"])["metadata"]["annotations"] == {
        "helm.sh/resource-policy": "keep"
    }
    (argo_dev,) = applications(docs)[("echo", "dev")]
    assert argo_dev["spec"]["syncPolicy"]["automated"] == {"enabled": False}
    assert argo_dev["spec"]["ignoreDifferences"][0]["jsonPointers"] == ["/spec/replicas"]
    _, deleting = compile_apps(echo(), cascade_delete=True)
    assert all("postRenderers" not in r["spec"] for r, _ in flux_releases(deleting).values())


def test_orphan_mode_skips_uninstall_hooks_and_warns_of_upgrades_that_keep() -> None:
    """With cascade_delete=False the keep annotation spares the objects on uninstall, but Helm's
    ``Uninstall.Run`` (pkg/action/uninstall.go) still runs the chart's pre- and post-delete hooks
    unless ``DisableHooks``; and Helm's upgrade (pkg/kube/client.go ``Client.Update``) skips
    deleting a kept object the new release no longer renders, which a warning states."""
    plan, docs = compile_apps(echo())
    for release, _ in flux_releases(docs).values():
        assert release["spec"]["uninstall"] == {"disableHooks": True}
    warned = [w.message for w in flux.warnings(plan)]
    assert any("app 'echo'" in w and "upgrade also leaves" in w for w in warned)
    plan, deleting = compile_apps(echo(), cascade_delete=True)
    assert all("uninstall" not in r["spec"] for r, _ in flux_releases(deleting).values())
    assert not [w for w in flux.warnings(plan) if "upgrade also leaves" in w.message]


def test_sync_retry_maps_to_helm_release_remediation_retries() -> None:
    """Argo CD retries a failed sync ``limit`` times ("unlimited number of attempts if less than
    0": docs/operator-manual/application.yaml); helm-controller's ``Remediation.Retries`` counts
    the same way ("a negative integer equals to unlimited retries": api/v2 helmrelease_types.go
    ``InstallRemediation``/``UpgradeRemediation``), under the ``RemediateOnFailure`` strategy
    (named: a ``DefaultToRetryOnFailure`` feature gate changes the default)."""
    from fleetgen import Retry

    for limit in (3, -1):
        environments = [
            Environment(name=env, sync=SyncPolicy(automated=True, retry=Retry(limit=limit)))
            for env in ("dev", "prod")
        ]
        _, docs = compile_apps(echo(), environments=environments)
        for release, _ in flux_releases(docs).values():
            spec = release["spec"]
            assert (
                spec["install"]["remediation"]
                == spec["upgrade"]["remediation"]
                == {"retries": limit}
            )
            assert (
                spec["install"]["strategy"]
                == spec["upgrade"]["strategy"]
                == {"name": "RemediateOnFailure"}
            )
            assert errors(release) == []  # Flux 2.7 and the newest
        (argo,) = applications(docs)[("echo", "dev")]
        assert argo["spec"]["syncPolicy"]["retry"]["limit"] == limit
    for retry in (None, Retry(limit=0)):
        environments = [
            Environment(name=env, sync=SyncPolicy(automated=True, retry=retry))
            for env in ("dev", "prod")
        ]
        _, docs = compile_apps(echo(), environments=environments)
        assert all(
            "remediation" not in release["spec"]["install"]
            for release, _ in flux_releases(docs).values()
        )


def test_keep_patch_annotates_every_object(tmp_path: Path, kustomize: Kustomize) -> None:
    _, docs = compile_apps(echo())
    release, _ = flux_releases(docs)["dev-1"]
    objects = render_chart(ROOT / CHART, ECHO_VALUES, "echo", "web")
    (tmp_path / "chart.yaml").write_text(yaml.safe_dump_all(objects))
    patches = release["spec"]["postRenderers"][0]["kustomize"]["patches"]
    (tmp_path / "kustomization.yaml").write_text(
        yaml.safe_dump({"resources": ["chart.yaml"], "patches": patches})
    )
    built = [d for d in yaml.safe_load_all(build(tmp_path, kustomize)) if d]
    assert len(built) == len(objects) == 2
    assert all(o["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep" for o in built)


STRATEGIC = Patch(target={"kind": "Deployment"}, patch={"spec": {"revisionHistoryLimit": 3}})
JSON6902 = Patch(
    target={"kind": "Deployment", "name": "echo"},
    patch=[{"op": "add", "path": "/metadata/labels", "value": {"tier": "web"}}],
)


def post_rendered() -> App:
    """An echo app whose images and patches come from the app, env and cluster layers."""
    return echo(
        images=[Image(name="registry.example.com/echo", new_name="mirror.example.com/echo")],
        per_env={"prod": Overrides(images=[Image(name="registry.example.com/echo", tag="2.1")])},
        per_cluster={"prod-b": Overrides(patches=[STRATEGIC, JSON6902])},
    )


def test_images_and_patches_post_render_a_flux_chart_app(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """helm-controller runs a HelmRelease's kustomize post-renderer through krusty
    (internal/postrender ``Kustomize.Run``: the rendered chart as its one resource, then
    ``images`` and ``patches``, nothing else); the same kustomization built here by kustomize
    over the chart Helm's SDK renders shows each layer's images and patches applied."""
    plan = resolve(make_fleet(apps=[post_rendered()], engines=["flux"]), WORKSPACE).on("flux")
    assert flux.check(plan) == []
    rendered = writer.render(flux.emit(plan))
    releases = {
        path.split("/")[2]: doc
        for path, data in rendered.items()
        for doc in yaml.safe_load_all(data)
        if doc and doc["kind"] == "HelmRelease"
    }
    keep = {"patch": KEEP_PATCH, "target": {"kind": ".*"}}  # cascade_delete=False (`flux.charts`)
    images = [{"name": "registry.example.com/echo", "newName": "mirror.example.com/echo"}]
    assert releases["dev-1"]["spec"]["postRenderers"] == [
        {"kustomize": {"images": images, "patches": [keep]}}
    ]
    (kustomization,) = releases["prod-b"]["spec"]["postRenderers"]
    assert kustomization["kustomize"]["images"] == [{**images[0], "newTag": "2.1"}]
    assert [p["target"] for p in kustomization["kustomize"]["patches"]] == [
        {"kind": "Deployment"},
        {"kind": "Deployment", "name": "echo"},
        {"kind": ".*"},
    ]
    for release in releases.values():
        assert errors(release) == []  # Flux 2.7 and the newest
    objects = render_chart(ROOT / CHART, ECHO_VALUES, "echo", "web")
    (tmp_path / "helm-output.yaml").write_text(yaml.safe_dump_all(objects))
    (tmp_path / "kustomization.yaml").write_text(
        yaml.safe_dump({"resources": ["helm-output.yaml"], **kustomization["kustomize"]})
    )
    built = [d for d in yaml.safe_load_all(build(tmp_path, kustomize)) if d]
    (deployment,) = [d for d in built if d["kind"] == "Deployment"]
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == (
        "mirror.example.com/echo:2.1"
    )
    assert deployment["spec"]["revisionHistoryLimit"] == 3
    assert deployment["metadata"]["labels"] == {"tier": "web"}
    assert deployment["metadata"]["annotations"] == KEEP


def test_argo_cd_refuses_a_chart_app_post_render_at_each_layer_that_sets_it() -> None:
    """An Application cannot post-render its Helm source (`fleetgen.emit.argocd.checks`
    ``_post_render_problems``): one problem at each layer that sets images or patches."""
    app = post_rendered()
    plan = resolve(make_fleet(apps=[app]), WORKSPACE)
    found = {p.line: p.message for p in argocd.check(plan)}
    layers = (app, app.per_env["prod"], app.per_cluster["prod-b"])
    assert sorted(found) == sorted(layer.origin[1] for layer in layers)
    assert found[app.origin[1]].startswith(
        "app 'echo': images post-render a chart's objects, which Argo CD cannot do for its "
        "placements on dev-1, prod-a, prod-b, prod-c: an Application's Helm source has no "
        "post-renderer, and kustomize inflating a chart needs '--enable-helm' in argocd-cm's "
        "kustomize.buildOptions"
    )
    assert "patches post-render" in found[app.per_cluster["prod-b"].origin[1]]


def test_flux_depends_on_between_chart_apps() -> None:
    _, docs = compile_apps(echo(), remote("https://charts.jetstack.io", depends_on=["echo"]))
    certs, _ = flux_releases(docs, "certs")["dev-1"]
    assert certs["spec"]["dependsOn"] == [{"name": "echo"}]


def test_explicit_source_repos_must_permit_the_chart_repository() -> None:
    from fleetgen import Project

    plan = resolve(
        make_fleet(
            apps=[remote("https://charts.jetstack.io")],
            projects=[
                Project(
                    name="web",
                    namespaces=["web"],
                    source_repos=["https://git.example.com/fleet.git"],
                )
            ],
        ),
        WORKSPACE,
    )
    assert [p.message for p in argocd.check(plan)] == [
        "project 'web': source_repos do not permit the chart repository "
        "https://charts.jetstack.io that its apps read; add it"
    ]
    with pytest.raises(SpecError):
        resolve(
            make_fleet(apps=[remote("https://charts.jetstack.io", per_env={"nope": Overrides()})]),
            WORKSPACE,
        )


def test_an_oci_chart_repository_in_source_repos_as_the_user_wrote_it_permits_the_chart() -> None:
    """argo-cd ``AppProject.IsSourcePermitted`` compares ``git.NormalizeGitURL`` forms, which
    keep a scheme, with the Application's ``repoURL``, which for a Helm OCI chart has none
    (``helm.IsHelmOciRepo``): the AppProject lists both forms, and the check compares those."""
    from fleetgen import Project

    registry = "oci://registry.example.com/charts"
    project = Project(
        name="web",
        namespaces=["web"],
        source_repos=["https://git.example.com/fleet.git", registry],
    )
    plan, docs = compile_apps(remote(registry), projects=[project])
    assert argocd.check(plan) == []
    (app_project,) = docs["argocd/projects/web.yaml"]
    assert app_project["spec"]["sourceRepos"] == [
        "https://git.example.com/fleet.git",
        registry,
        "registry.example.com/charts",
    ]
    (application,) = applications(docs)[("certs", "dev")]
    assert application["spec"]["source"]["repoURL"] == "registry.example.com/charts"


def _example_on(tmp_path: Path, engine: str) -> dict[str, list[Any]]:
    """The example's output documents with status-page placed on ``engine`` everywhere."""
    from fleetgen.pipeline import api

    (tmp_path / engine).mkdir()
    for name in ("apps", "charts"):
        (tmp_path / engine / name).symlink_to(ROOT / name)
    text = (
        (ROOT / "fleet.py")
        .read_text()
        .replace(
            'name="status-page", project="platform",',
            f'name="status-page", engine="{engine}", project="platform",',
        )
    )
    assert f'engine="{engine}"' in text
    (tmp_path / engine / "fleet.py").write_text(text)
    compiled = api.compile_spec(tmp_path / engine / "fleet.py")
    return {
        path: [d for d in yaml.safe_load_all(data) if d]
        for path, data in compiled.rendered.items()
        if path.endswith(".yaml")
    }


def test_the_example_chart_in_the_repository_renders_the_same_on_both_engines(
    tmp_path: Path,
) -> None:
    """Each placement has one engine (dev: Flux, staging: Argo CD); placing status-page on
    each engine in turn, both render the same objects on every cluster."""
    from fleetgen.pipeline import api

    compiled = api.compile_spec(ROOT / "fleet.py")
    servers = {c.server.rstrip("/"): c.name for c in compiled.plan.fleet.clusters}
    argo = {
        servers[a["spec"]["destination"]["server"]]: a
        for (app, _), apps in applications(_example_on(tmp_path, "argocd")).items()
        if app == "status-page"
        for a in apps
    }
    placed = {p.cluster for p in compiled.plan.placements if p.app == "status-page"}
    assert set(argo) == placed == {"dev", "staging"}
    as_is = {
        path: [d for d in yaml.safe_load_all(data) if d]
        for path, data in compiled.rendered.items()
        if path.endswith(".yaml")
    }
    assert set(flux_releases(as_is, "status-page")) == {"dev"}  # each engine: its placements
    assert [
        servers[a["spec"]["destination"]["server"]]
        for (app, _), apps in applications(as_is).items()
        if app == "status-page"
        for a in apps
    ] == ["staging"]
    flux_docs = _example_on(tmp_path, "flux")
    chart = ROOT / "charts/status-page"
    for cluster, (release, values) in flux_releases(flux_docs, "status-page").items():
        helm = argo[cluster]["spec"]["source"]["helm"]
        from_argo = (
            without_nulls(helm["valuesObject"])
            if "valuesObject" in helm
            else parse_values(helm["values"])
        )
        assert release["spec"]["releaseName"] == helm["releaseName"] == "status-page"
        assert render_chart(chart, values, "status-page", "platform") == render_chart(
            chart, from_argo, "status-page", "platform"
        )
        placed.discard(cluster)
    assert not placed
    dev = render_chart(
        chart, flux_releases(flux_docs, "status-page")["dev"][1], "status-page", "platform"
    )
    (deployment,) = (d for d in dev if d["kind"] == "Deployment")
    resources = deployment["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert resources == {"limits": {"cpu": "200m", "memory": "128Mi"}}  # requests removed


def test_hub_mode_releases_reach_spokes_through_kube_config() -> None:
    from fleetgen import FluxOptions

    plan = resolve(
        make_fleet(
            apps=[echo()],
            flux=FluxOptions(mode="hub", hub="dev-1"),
            environments=[
                Environment(name="dev", sync=SyncPolicy(automated=True)),
                Environment(name="prod", sync=SyncPolicy(automated=True)),
            ],
            clusters=[c for c in make_fleet().clusters if c.name in ("dev-1", "prod-c")],
        ),
        WORKSPACE,
    )
    docs = emitted(plan)
    spoke = {
        (o["kind"], o["metadata"]["name"]): o
        for o in docs["flux/clusters/dev-1/spokes/prod-c.yaml"]
    }
    release = spoke[("HelmRelease", "echo")]
    assert release["metadata"]["namespace"] == "prod-c"
    assert release["spec"]["kubeConfig"] == {"secretRef": {"name": "kubeconfig", "key": "value"}}
    assert ("HelmRepository", "echo") not in spoke  # a chart in the repository: fleet source
    # The Helm storage lives on the spoke, in the app's namespace (the HelmRelease's own
    # namespace is a hub namespace that the spoke does not have).
    assert release["spec"]["storageNamespace"] == "web"
    assert release["spec"]["install"]["createNamespace"] is True
    assert errors(release) == []
    assert [w.message for w in flux.warnings(plan) if "chart app" in w.message] == []


def test_a_tenant_release_leaves_its_namespace_to_fleetgen() -> None:
    # helm-controller builds the release's client with kube.WithImpersonate (HelmReleaseReconciler
    # buildRESTClientGetter), so Helm's Install.RunWithContext would create the namespace as the
    # tenant's account, which ClusterRole admin in a RoleBinding cannot do (Forbidden, even for a
    # namespace that exists: only AlreadyExists is tolerated). fleetgen's Namespace object, which
    # the cluster's root Kustomization applies as kustomize-controller itself, creates it.
    _, docs = compile_apps(
        echo(), projects=[Project(name="web", namespaces=["web"], service_account="deployer")]
    )
    dev = {
        (o["kind"], o["metadata"]["name"]): o
        for o in docs["flux/clusters/dev-1/kustomizations.yaml"]
    }
    release = dev[("HelmRelease", "echo")]
    assert release["spec"]["serviceAccountName"] == "deployer"
    assert "createNamespace" not in release["spec"]["install"]
    assert errors(release) == []
    assert ("Namespace", "web") in {
        (o["kind"], o["metadata"]["name"]) for o in docs["flux/clusters/dev-1/namespaces.yaml"]
    }
    (binding,) = (o for o in docs["flux/clusters/dev-1/tenants.yaml"] if o["kind"] == "RoleBinding")
    assert binding["metadata"]["namespace"] == "web"
    assert binding["roleRef"]["name"] == "admin"
    # Without a tenant account, the controller itself installs and may create the namespace.
    _, plain = compile_apps(echo())
    (release,) = (
        o for o in plain["flux/clusters/dev-1/kustomizations.yaml"] if o["kind"] == "HelmRelease"
    )
    assert release["spec"]["install"]["createNamespace"] is True
    # With Fleet(create_namespaces=False) the namespaces are provisioned elsewhere, and no
    # engine creates them (Argo CD's Applications then carry no CreateNamespace=true either).
    _, provisioned = compile_apps(echo(), create_namespaces=False)
    (release,) = (
        o
        for o in provisioned["flux/clusters/dev-1/kustomizations.yaml"]
        if o["kind"] == "HelmRelease"
    )
    assert "createNamespace" not in release["spec"]["install"]


def test_release_name_reaches_both_engines() -> None:
    """``HelmChart(release_name=...)``: Argo CD's ``spec.source.helm.releaseName`` and Flux's
    HelmRelease ``releaseName`` (the HelmRelease keeps the app's name); default: the app's."""
    _, docs = compile_apps(
        echo(chart=HelmChart(path=CHART, release_name="frontend")),
        remote("https://charts.jetstack.io"),
    )
    apps = applications(docs)
    assert apps[("echo", "dev")][0]["spec"]["source"]["helm"]["releaseName"] == "frontend"
    assert apps[("certs", "dev")][0]["spec"]["source"]["helm"]["releaseName"] == "certs"
    dev = {
        (o["kind"], o["metadata"]["name"]): o
        for o in docs["flux/clusters/dev-1/kustomizations.yaml"]
    }
    assert dev[("HelmRelease", "echo")]["spec"]["releaseName"] == "frontend"
    assert dev[("HelmRelease", "certs")]["spec"]["releaseName"] == "certs"


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("f" * 54, "is 54 characters; Helm and Flux's HelmRelease allow at most 53"),
        ("Frontend", "is not a Helm release name"),
        ("front_end", "is not a Helm release name"),
    ],
)
def test_a_release_name_helm_refuses_is_a_spec_error(name: str, problem: str) -> None:
    """Helm's ``chartutil.ValidateReleaseName`` (a DNS-1123 subdomain, at most 53 characters),
    which helm-controller's CRD also enforces on ``spec.releaseName`` (maxLength 53)."""
    with pytest.raises(ValidationError, match=problem):
        HelmChart(path=CHART, release_name=name)
    assert HelmChart(path=CHART, release_name="f" * 53).release_name == "f" * 53


def flux_objects(docs: dict[str, list[Any]], cluster: str = "dev-1") -> dict[Any, Any]:
    """(kind, name) -> spec of the Flux objects of ``cluster``."""
    return {
        (o["kind"], o["metadata"]["name"]): o["spec"]
        for o in docs[f"flux/clusters/{cluster}/kustomizations.yaml"]
    }


def test_chart_options_reach_the_flux_source_and_release() -> None:
    """``HelmChart(interval)`` is the source's interval and the HelmChart's (helm-controller
    ``HelmChartTemplateSpec.Interval``, else the release's); ``verify`` is the OCIRepository's
    (source-controller ``verifySignature``: cosign keys from ``secretRef`` or keyless with
    ``matchOIDCIdentity``; notation's trust policy from ``secretRef``); ``test`` enables Helm
    tests after install and upgrade (``spec.test.enable``)."""
    identity = OIDCIdentity(issuer="^https://token.actions.githubusercontent.com$", subject=".*")
    oci, http = (
        remote(
            "oci://quay.io/jetstack/charts",
            chart=HelmChart(
                repo="oci://quay.io/jetstack/charts",
                name="cert-manager",
                version="v1.16.2",
                interval="1h",
                verify=ChartVerify(match_oidc_identity=[identity]),
            ),
        ),
        remote(
            "https://charts.jetstack.io",
            name="certs-http",
            chart=HelmChart(
                repo="https://charts.jetstack.io",
                name="cert-manager",
                version="v1.16.2",
                interval="2h",
                test=True,
            ),
        ),
    )
    local = echo(chart=HelmChart(path=CHART, interval="30m"))
    notation = remote(
        "oci://ghcr.io/acme",
        name="signed",
        chart=HelmChart(
            repo="oci://ghcr.io/acme",
            name="signed",
            version="1.0.0",
            verify=ChartVerify(provider="notation", secret_ref="notation-trust"),
        ),
    )
    _, docs = compile_apps(oci, http, local, notation)
    dev = flux_objects(docs)
    assert dev[("OCIRepository", "certs")]["interval"] == "1h"
    assert dev[("OCIRepository", "certs")]["verify"] == {
        "provider": "cosign",
        "matchOIDCIdentity": [
            {"issuer": "^https://token.actions.githubusercontent.com$", "subject": ".*"}
        ],
    }
    assert dev[("OCIRepository", "signed")]["verify"] == {
        "provider": "notation",
        "secretRef": {"name": "notation-trust"},
    }
    assert dev[("OCIRepository", "signed")]["interval"] == "10m"  # FluxOptions.interval
    assert dev[("HelmRepository", "certs-http")]["interval"] == "2h"
    assert dev[("HelmRelease", "certs-http")]["chart"]["spec"]["interval"] == "2h"
    assert dev[("HelmRelease", "certs-http")]["test"] == {"enable": True}
    assert "test" not in dev[("HelmRelease", "certs")]
    assert dev[("HelmRelease", "echo")]["chart"]["spec"]["interval"] == "30m"
    assert "interval" not in dev[("HelmRelease", "signed")].get("chart", {}).get("spec", {})
    for path, objects in docs.items():
        if path.startswith("flux/"):
            for obj in objects:
                assert errors(obj) == [], (path, obj["kind"])  # Flux 2.7 and the newest


def test_chart_retries_win_over_the_sync_retry_on_flux() -> None:
    """``install_retries``/``upgrade_retries`` are helm-controller's ``remediation.retries`` of
    that action (-1 forever; 0 none: ``InstallRemediation.GetRetries``); an action the chart
    leaves unset keeps the sync policy's ``retry`` limit
    (`fleetgen.resolver.timing.helm_retries`)."""
    from fleetgen import Retry

    environments = [
        Environment(name=env, sync=SyncPolicy(automated=True, retry=Retry(limit=2)))
        for env in ("dev", "prod")
    ]
    app = echo(chart=HelmChart(path=CHART, install_retries=-1, upgrade_retries=0))
    _, docs = compile_apps(app, environments=environments)
    spec = flux_objects(docs)[("HelmRelease", "echo")]
    assert spec["install"]["remediation"] == {"retries": -1}
    assert spec["install"]["strategy"] == {"name": "RemediateOnFailure"}
    assert "remediation" not in spec["upgrade"] and "strategy" not in spec["upgrade"]
    app = echo(chart=HelmChart(path=CHART, upgrade_retries=4))
    _, docs = compile_apps(app, environments=environments)
    spec = flux_objects(docs)[("HelmRelease", "echo")]
    assert (spec["install"]["remediation"], spec["upgrade"]["remediation"]) == (
        {"retries": 2},
        {"retries": 4},
    )


def test_argo_cd_warns_of_each_flux_chart_setting_at_the_helm_chart() -> None:
    """Argo CD has none of them: no source interval per Application (argocd-cm
    timeout.reconciliation), no chart signature check, retries by ``syncPolicy.retry`` (no
    remediation), and no Helm tests (gitops-engine hook/helm ``Types`` maps only pre/post
    install and upgrade hooks)."""
    chart = HelmChart(
        repo="oci://quay.io/jetstack/charts",
        name="cert-manager",
        version="v1.16.2",
        interval="1h",
        verify=ChartVerify(),
        install_retries=1,
        upgrade_retries=1,
        test=True,
    )
    plan = resolve(
        make_fleet(apps=[remote("oci://quay.io/jetstack/charts", chart=chart)]), WORKSPACE
    )
    warned = [w for w in argocd.warnings(plan) if "HelmChart(" in w.message]
    assert [w.message.split("HelmChart(")[1].split("=")[0] for w in warned] == [
        "interval",
        "verify",
        "install_retries",
        "upgrade_retries",
        "test",
    ]
    assert {w.line for w in warned} == {chart.origin[1]}
    assert "deploy the chart unverified" in warned[1].message
    assert "SyncPolicy(retry=Retry(...))" in warned[2].message
    plain = remote("oci://quay.io/jetstack/charts")
    plan = resolve(make_fleet(apps=[plain]), WORKSPACE)
    assert not [w for w in argocd.warnings(plan) if "HelmChart(" in w.message]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"repo": "https://charts.example.com", "name": "x", "version": "1.0.0"},
            "verify= checks the signature of a chart from an oci:// registry",
        ),
        ({"path": CHART}, "verify= checks the signature of a chart from an oci:// registry"),
    ],
)
def test_verify_needs_an_oci_chart(fields: dict[str, str], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        HelmChart(**fields, verify=ChartVerify())


def test_verify_keys_fit_the_provider() -> None:
    """source-controller's ``verifySignature``: notation reads its trust policy from
    ``secretRef`` (an error without one); ``matchOIDCIdentity`` is read only for keyless
    cosign."""
    with pytest.raises(ValidationError, match="set secret_ref="):
        ChartVerify(provider="notation")
    identity = OIDCIdentity(issuer="x", subject="y")
    with pytest.raises(ValidationError, match="applies to keyless cosign"):
        ChartVerify(secret_ref="keys", match_oidc_identity=[identity])
    with pytest.raises(ValidationError, match="greater than or equal to -1"):
        HelmChart(path=CHART, install_retries=-2)
