"""The Flux objects of a chart app's placement: its chart source and a HelmRelease.

Next to the Kustomizations of its cluster (`fleetgen.emit.flux.objects.kustomization_files`), in
the same namespace, each named after the app:

- the source: a ``HelmRepository`` for an ``https://`` repository, an ``OCIRepository`` (the Helm
  chart layer; `oci_ref`: the chart version's tag, or a range as ``ref.semver``) for ``oci://``,
  or nothing for a chart kept in the
  repository, which the HelmRelease reads from the fleet's GitRepository with
  ``reconcileStrategy: ChartVersion``: the chart is rebuilt, and the release upgraded, when its
  Chart.yaml version changes (``Revision`` makes the version ``<version>+<commit>``, so every
  commit of the repository upgrades every release: hooks re-run, pods restart). Argo CD renders the
  chart at every revision instead, so a chart whose files change without a version bump is a
  build error (`fleetgen.settle.chartstamps`): both engines then deploy the same thing. The source,
  and the HelmChart Flux builds, are checked every ``HelmChart(interval=...)`` where set; an
  OCIRepository verifies the chart's signature by ``HelmChart(verify=...)``;
- a ``HelmRelease`` (helm.toolkit.fluxcd.io/v2) with the release name (the app's), the app's
  namespace as target and Helm storage namespace, the merged values, ``install.createNamespace``
  where fleetgen creates namespaces unless a tenant's account installs it (`_create_namespace`),
  ``install.crds: Create`` and ``upgrade.crds: CreateReplace`` (Argo CD applies a chart's ``crds/``
  on every sync), drift detection on (Flux corrects drift, as Kustomizations do) with
  ``ignore_differences``' JSON pointers, ``suspend`` where sync is manual, ``dependsOn`` other chart
  apps of the cluster, ``test.enable`` by ``HelmChart(test=True)``; ``install``/
  ``upgrade.remediation.retries`` by ``HelmChart(install_retries/upgrade_retries)``, else the
  sync policy's ``retry`` (``limit``; -1 retries forever on both engines; `timing.helm_retries`),
  with the ``RemediateOnFailure`` strategy named: helm-controller remediates between attempts
  (uninstalls a failed install, rolls back a failed upgrade) where Argo CD re-applies, and the
  backoff has no HelmRelease equivalent;
- values holding a null travel as text: a ConfigMap ``<app>.values`` read through ``valuesFrom``
  (a null inside ``spec.values`` would be dropped on the way to the API server), under a key
  named after the text's hash (`values_key`): a change of values changes the HelmRelease's
  spec, a new generation, which the gate and wrapper wait for as for any other change;
- the app's ``images`` and ``patches`` (every layer's, layered as for a kustomize app) as a
  kustomize post-renderer (`fleetgen.emit.common.post_render`), which helm-controller runs on
  the chart's templates before Helm applies them (not its ``crds/``; hooks too under Helm 4's
  default ``combined`` strategy: helm-controller ``newInstall``, Helm ``renderResources``);
- with ``cascade_delete=False``, the post-renderer also annotates every rendered object with
  ``helm.sh/resource-policy: keep``: a HelmRelease has no orphaning deletion policy (uninstall
  deletes the release's objects), and Helm skips kept objects on uninstall; and
  ``uninstall.disableHooks``: Helm's ``Uninstall.Run`` would still run the chart's pre- and
  post-delete hooks (jobs that tear down what the kept objects use). The keep also makes Helm's
  upgrade (``pkg/kube`` ``Client.Update``) skip deleting objects a new version stops rendering;
  `fleetgen.emit.flux.checks` warns of it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from typing import Any

from fleetgen.emit.common import post_render, values_text
from fleetgen.model import App, Fleet, HelmChart
from fleetgen.resolver.confighash import text_hash
from fleetgen.resolver.plan import ChartSource, Placement
from fleetgen.resolver.timing import FLUX_DEFAULT, flux_timing, helm_retries
from fleetgen.resolver.values import holds_null

HELM_API = "helm.toolkit.fluxcd.io/v2"
SOURCE_API = "source.toolkit.fluxcd.io/v1"
HELM_LAYER = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
KEEP = {"helm.sh/resource-policy": "keep"}
# A strategic-merge patch that kustomize applies to every object (its kind and name are replaced
# by each target's): helm-controller's kustomize post-renderer runs it on the rendered chart.
KEEP_PATCH = (
    "apiVersion: v1\nkind: Keep\nmetadata:\n  name: keep\n  annotations:\n"
    "    helm.sh/resource-policy: keep\n"
)

Ref = tuple[str, str]


def values_configmap_name(app: str) -> str:
    """The ConfigMap that carries the values text of a chart app (dotted: no app clashes)."""
    return f"{app}.values"


def values_key(text: str) -> str:
    """The ConfigMap key of values ``text``: named after its hash, so that new values change the
    HelmRelease's ``valuesFrom`` — a ConfigMap changed alone leaves the HelmRelease's generation,
    which kstatus (``checkGeneration``) and so the gate and wrapper read, as it was. The
    ConfigMap keeps its name and holds the one key: updated in place, nothing to prune.
    helm-controller reads the key at each reconcile (fluxcd/pkg ``ChartValuesFromReferences``)."""
    return f"values-{text_hash(text)}.yaml"


def chart_objects(
    fleet: Fleet,
    app: App,
    placement: Placement,
    namespace: str,
    metadata: Mapping[str, Any],
    spec: Mapping[str, Any],
    git_source: Mapping[str, str],
    ignore: list[dict[str, Any]],
    depends_on: Iterable[Ref],
) -> list[dict[str, Any]]:
    """Source, values ConfigMap (when the values hold a null) and HelmRelease of ``placement``.

    ``metadata`` is the HelmRelease's (name, namespace, labels, annotations); ``spec`` what every
    object of its Home carries (kubeConfig of a spoke) plus the project's service account.
    """
    chart = placement.chart
    assert chart is not None and placement.namespace is not None  # resolve: a chart app has one
    sync, timing = placement.settings.sync, flux_timing(fleet, placement)
    release: dict[str, Any] = {
        "interval": timing["interval"].value,
        "releaseName": app.release_name or app.name,
        "targetNamespace": placement.namespace,
        "storageNamespace": placement.namespace,
    }
    objects, reference = _chart_source(fleet, app, chart, namespace, git_source)
    release.update(reference)
    if timing["timeout"].source != FLUX_DEFAULT:
        release["timeout"] = timing["timeout"].value
    no_wait = {} if sync.wait else {"disableWait": True}
    release["install"] = {**_create_namespace(fleet, spec), "crds": "Create", **no_wait}
    release["upgrade"] = {"crds": "CreateReplace", **no_wait}
    for action, retries in helm_retries(app, placement).items():
        if retries.value != 0:
            # Named: a DefaultToRetryOnFailure feature gate would otherwise ignore the retries.
            release[action]["strategy"] = {"name": "RemediateOnFailure"}
            release[action]["remediation"] = {"retries": retries.value}
    if app.chart is not None and app.chart.test:
        release["test"] = {"enable": True}
    release["driftDetection"] = {"mode": "enabled", **({"ignore": ignore} if ignore else {})}
    values = placement.settings.values
    if holds_null(values):
        name, text = values_configmap_name(app.name), values_text(values)
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": namespace},
                "data": {values_key(text): text},
            }
        )
        release["valuesFrom"] = [{"kind": "ConfigMap", "name": name, "valuesKey": values_key(text)}]
    elif values:
        release["values"] = dict(values)
    kustomize = post_render(placement.settings)
    if not placement.cascade_delete:
        keep = {"patch": KEEP_PATCH, "target": {"kind": ".*"}}
        kustomize["patches"] = [*kustomize.get("patches", ()), keep]
    if kustomize:
        release["postRenderers"] = [{"kustomize": kustomize}]
    if not placement.cascade_delete:
        release["uninstall"] = {"disableHooks": True}
    refs = sorted(set(depends_on))
    if refs:
        release["dependsOn"] = [
            {"name": name} if ns == namespace else {"name": name, "namespace": ns}
            for ns, name in refs
        ]
    release.update(spec)
    if not placement.settings.sync.automated:
        release["suspend"] = True
    objects.append(
        {"apiVersion": HELM_API, "kind": "HelmRelease", "metadata": dict(metadata), "spec": release}
    )
    return objects


def _chart_source(
    fleet: Fleet,
    app: App,
    chart: ChartSource,
    namespace: str,
    git_source: Mapping[str, str],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The source object of ``chart`` (none for a chart kept in the repository) and the
    HelmRelease's ``chart`` or ``chartRef`` reading it."""
    options = app.chart
    assert options is not None
    # The HelmChart Flux builds from a HelmRepository or the GitRepository (none for an
    # OCIRepository, which the release reads directly): checked every `interval` if set, else
    # at the release's interval (helm-controller's HelmChartTemplateSpec default).
    chart_interval = {"interval": options.interval} if options.interval else {}
    if chart.path is not None:
        # The version, which source-controller ignores for a GitRepository's chart (only
        # ``buildFromHelmRepository`` reads it), makes a version bump a new generation of the
        # HelmRelease, which kstatus holds InProgress until helm-controller observed it, and
        # helm-controller then waits for the HelmChart it rebuilt (``isSourceReady``): what
        # the gate's and wrapper's health checks wait for (`fleetgen.emit.flux.dependencies`).
        spec = {
            "chart": f"./{posixpath.normpath(chart.path)}",
            "version": chart.version,
            **chart_interval,
            "reconcileStrategy": "ChartVersion",
            "sourceRef": dict(git_source),
        }
        return [], {"chart": {"spec": spec}}
    if chart.oci:
        source = _oci_repository(fleet, chart, options, app.name, namespace)
        return [source], {"chartRef": {"kind": "OCIRepository", "name": app.name}}
    spec = {
        "chart": chart.name,
        "version": chart.version,
        **chart_interval,
        "sourceRef": {"kind": "HelmRepository", "name": app.name},
    }
    return [_helm_repository(fleet, chart, options, app.name, namespace)], {"chart": {"spec": spec}}


def _create_namespace(fleet: Fleet, spec: Mapping[str, Any]) -> dict[str, bool]:
    """``createNamespace: true`` where fleetgen creates namespaces (`Fleet.create_namespaces`,
    as Argo CD's CreateNamespace=true), except for a tenant's release (``serviceAccountName``).

    The namespace may not exist yet on a hub's spoke, whose Namespaces another Kustomization
    creates (Argo CD's Applications carry CreateNamespace=true likewise). But helm-controller runs
    the whole install, namespace creation included, as the impersonated account
    (``buildRESTClientGetter``: ``kube.WithImpersonate``), and Helm's ``Install.RunWithContext``
    fails on any error creating it but AlreadyExists: the tenant's account, bound to ClusterRole
    admin in its namespaces only, is refused even for an existing namespace. fleetgen's Namespace
    objects create a tenant's namespaces instead (applied as the controller itself), or, with
    ``Fleet(create_namespaces=False)``, whoever provisions them.
    """
    if not fleet.create_namespaces or spec.get("serviceAccountName"):
        return {}
    return {"createNamespace": True}


def _helm_repository(
    fleet: Fleet, chart: ChartSource, options: HelmChart, name: str, namespace: str
) -> dict[str, Any]:
    assert chart.repo is not None
    return {
        "apiVersion": SOURCE_API,
        "kind": "HelmRepository",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"interval": options.interval or fleet.flux.interval, "url": chart.repo},
    }


def oci_ref(version: str, is_range: bool) -> dict[str, str]:
    """An OCIRepository's ``ref`` for a chart version: a range as ``semver``, which
    source-controller resolves against the registry's tags (``getTagBySemver``, reading a tag's
    ``_`` as ``+``: ``convertOCIToSemVerTag``); an exact version as the tag Helm pushed it
    under, its build metadata's ``+`` as ``_`` (an OCI tag has no ``+``; Helm's registry client
    ``parseReference``), which ``getArtifactRef`` pulls as written."""
    return {"semver": version} if is_range else {"tag": version.replace("+", "_")}


def _oci_repository(
    fleet: Fleet, chart: ChartSource, options: HelmChart, name: str, namespace: str
) -> dict[str, Any]:
    """The OCIRepository of an oci:// chart, with its signature check: source-controller's
    ``verifySignature`` reads cosign keys (``*.pub``) or notation's trust policy from
    ``secretRef`` in the OCIRepository's namespace, and ``matchOIDCIdentity`` for keyless
    cosign."""
    assert chart.repo is not None
    spec: dict[str, Any] = {
        "interval": options.interval or fleet.flux.interval,
        "url": f"{chart.repo}/{chart.name}",
        "ref": oci_ref(chart.version, chart.range),
        "layerSelector": {"mediaType": HELM_LAYER, "operation": "copy"},
    }
    verify = options.verify
    if verify is not None:
        spec["verify"] = {"provider": verify.provider}
        if verify.secret_ref is not None:
            spec["verify"]["secretRef"] = {"name": verify.secret_ref}
        if verify.match_oidc_identity:
            spec["verify"]["matchOIDCIdentity"] = [
                {"issuer": identity.issuer, "subject": identity.subject}
                for identity in verify.match_oidc_identity
            ]
    return {
        "apiVersion": SOURCE_API,
        "kind": "OCIRepository",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }
