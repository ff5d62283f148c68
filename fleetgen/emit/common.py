"""What more than one emitter writes, and what code above the emitters borrows of how they write
it: the kustomization header, the output fields newer than a controller floor, the engines'
bootstrap commands, the text of a chart app's values, kustomize's image and patch entries (an
overlay's, or a chart app's post-render, which validate and diff render too), a cluster's
registration labels and var annotations (validate's contracts check the ApplicationSets against
them), the command that prints a cluster's CA (Argo CD's check and ``add cluster`` name it), the
tenants' accounts and bindings.

Emitters never import from one another; what two of them share lives here. This is the one module
of emitter knowledge that settle and the features may import: what it holds needs the spec or the
Plan. The names and patterns of the engines that need neither are in `fleetgen.rules.argocd`,
`fleetgen.rules.flux` and `fleetgen.write.output` (fleetgen's labels).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from fleetgen.inputs.record import tenant_drain
from fleetgen.manifests.yamlio import dump
from fleetgen.model import (
    App,
    ArgoInstance,
    ArgoOptions,
    AwsAuth,
    Cluster,
    ExecAuth,
    Fleet,
    NamespaceMeta,
    Patch,
)
from fleetgen.model.fields import VAR_PREFIX, release
from fleetgen.resolver.plan import ImageRef, Placement, Plan, Settings
from fleetgen.rules.argocd import SECRET_TYPE
from fleetgen.util.layout import BOOTSTRAP
from fleetgen.write.output import CLUSTER_LABEL, ENV_LABEL, WAVE_LABEL

KUSTOMIZATION = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}

# Output fields newer than a supported controller floor, by engine: (release, what fleetgen emits
# from that release on). An emitter uses one only when the engine's min_version reaches the
# release; the fleet map lists them as what a higher floor unlocks.
FLUX_IGNORE_SINCE = "2.9"  # Kustomization spec.ignore (kustomize-controller v1.9)
# A generator's post selector matches a goTemplate set's annotations (argo-cd v3.4.0,
# generator_spec_processor.go normalizeMapForFlatten; before, it never matched them)
ARGOCD_VAR_SELECTOR_SINCE = "3.4"
# A tenant's project beside projects without destinationServiceAccounts: from this release
# application.sync.impersonation.enforced "false" lets those sync as the controller
# (argo-cd v3.5.0 util/settings IsImpersonationEnforced); before it, impersonation enabled fails
# every such Application ("no matching service account found": controller/sync.go
# deriveServiceAccountToImpersonate), fleetgen's root among them.
ARGOCD_UNENFORCED_IMPERSONATION_SINCE = "3.5"
NEWER_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "argocd": (
        (
            ARGOCD_VAR_SELECTOR_SINCE,
            "a generator `selector` on the `fleetgen.io/var.*` annotations of apps selecting "
            "clusters at run time: a cluster Secret missing one is not selected, instead of "
            "failing its whole ApplicationSet",
        ),
    ),
    "flux": (
        (
            FLUX_IGNORE_SINCE,
            "`Kustomization.spec.ignore`: Flux leaves the JSON pointers of "
            "`ignore_differences` alone too",
        ),
    ),
}


def selects_by_vars(options: ArgoOptions) -> bool:
    """Whether an Argo CD instance of these options selects by a generator ``selector`` on
    the var annotations (`ARGOCD_VAR_SELECTOR_SINCE`)."""
    return release(options.min_version) >= release(ARGOCD_VAR_SELECTOR_SINCE)


def unenforced_impersonation(fleet: Fleet) -> bool:
    """Whether every Argo CD instance of the fleet runs a release that may leave impersonation
    unenforced (`ARGOCD_UNENFORCED_IMPERSONATION_SINCE`)."""
    lowest = min(release(i.options.min_version) for i in fleet.argocd_instances)
    return lowest >= release(ARGOCD_UNENFORCED_IMPERSONATION_SINCE)


def argocd_bootstrap(fleet: Fleet, instance: ArgoInstance) -> str:
    """The command that starts an Argo CD instance on this output: applied once, on the cluster
    it runs on, its root Application syncs the instance's folder (``<output_dir>/argocd/``)."""
    return (
        f"kubectl apply -n {instance.options.namespace} "
        f"-f {fleet.output_dir}/{instance.directory}/{BOOTSTRAP}"
    )


def flux_bootstrap(fleet: Fleet, cluster: str) -> str:
    """The command that installs Flux on ``cluster`` (with kubectl pointing at it), reading the
    cluster's directory of this output."""
    return (
        f"flux bootstrap git --url={fleet.repo} --branch={fleet.revision} "
        f"--path={fleet.output_dir}/flux/clusters/{cluster}"
    )


def values_text(values: Mapping[str, Any]) -> str:
    """A chart app's merged values as the text of a Helm values file (``-f``). Strings Helm's
    YAML 1.1 reader would take for something else (``no``, ``1e3``) are quoted, and a None is
    written ``null``, which Helm reads as "drop this key, the chart's default included"."""
    return dump(dict(values))


def kustomize_images(
    images: Iterable[ImageRef], before: Mapping[str, ImageRef]
) -> list[dict[str, Any]]:
    """kustomize ``images`` entries turning the ``before`` images into ``images``."""
    entries = []
    for image in sorted(images, key=lambda i: i.name):
        previous = before.get(image.name, ImageRef(image.name))
        entry: dict[str, Any] = {"name": previous.current_name}
        if image.current_name != previous.current_name:
            entry["newName"] = image.current_name
        if image.tag is not None:
            entry["newTag"] = image.tag
        if image.digest is not None:
            entry["digest"] = image.digest
        entries.append(entry)
    return entries


def patch_entry(patch: Patch) -> dict[str, Any]:
    """A kustomize ``patches`` entry: the target, and the patch as text (a strategic-merge patch
    gets kind and name if missing)."""
    if isinstance(patch.patch, list):
        text = dump(patch.patch)
    else:
        body = dict(patch.patch)
        body.setdefault("kind", patch.target["kind"])
        metadata = dict(body.get("metadata") or {})
        metadata.setdefault("name", patch.target.get("name", "any"))
        body["metadata"] = metadata
        text = dump(body)
    return {"target": dict(sorted(patch.target.items())), "patch": text}


def post_render(settings: Settings) -> dict[str, Any]:
    """A chart app's ``images`` and ``patches`` (every layer's, in layer order) as the
    kustomization that post-renders what its chart renders: helm-controller's kustomize
    post-renderer takes exactly these two (internal/postrender ``Kustomize.Run``: the rendered
    chart as its one resource, then ``images`` and ``patches``); empty when there are none."""
    images = kustomize_images(settings.images.values(), {})
    patches = [patch_entry(patch) for patch in settings.patches]
    return {
        **({"images": images} if images else {}),
        **({"patches": patches} if patches else {}),
    }


def var_annotations(cluster: Cluster) -> dict[str, str]:
    """The annotations ``fleetgen.io/var.<name>`` of a cluster's vars, which an ApplicationSet
    that selects clusters at run time reads (`Cluster.vars`)."""
    return {VAR_PREFIX + name: value for name, value in sorted(cluster.vars.items())}


def cluster_labels(plan: Plan, cluster: Cluster) -> dict[str, str]:
    """The labels a cluster's Argo CD registration carries besides its secret type: the
    cluster's own, and fleetgen's name, environment and rollout wave, which ApplicationSets
    select by and read."""
    labels = {**cluster.labels, CLUSTER_LABEL: cluster.name, ENV_LABEL: cluster.env}
    for number, clusters in enumerate(plan.waves.get(cluster.env, ()), 1):
        if cluster.name in clusters:
            labels[WAVE_LABEL] = str(number)
    return dict(sorted(labels.items()))


def registration_labels(plan: Plan, cluster: Cluster) -> dict[str, str]:
    """Labels of a cluster's registration Secret: secret type, the cluster's, fleetgen's."""
    return dict(sorted({SECRET_TYPE: "cluster", **cluster_labels(plan, cluster)}.items()))


def ca_command(credentials: AwsAuth | ExecAuth) -> str:
    """A command that prints the cluster's CA bundle as ``ca_data`` takes it (base64 PEM)."""
    if isinstance(credentials, AwsAuth):
        return (
            f"aws eks describe-cluster --name {credentials.cluster_name} "
            "--query cluster.certificateAuthority.data --output text"
        )
    if credentials.args[:1] == ["gcp"]:
        return (
            "gcloud container clusters describe NAME --location LOCATION "
            "--format='value(masterAuth.clusterCaCertificate)'"
        )
    if credentials.args[:1] == ["azure"]:
        return (
            "az aks get-credentials --resource-group GROUP --name NAME --file - | "
            "sed -n 's/^ *certificate-authority-data: //p'"
        )
    return (
        "kubectl config view --raw --minify "
        "-o jsonpath='{.clusters[0].cluster.certificate-authority-data}'"
    )


# Tenants (`Project.service_account`): the ServiceAccount an engine applies a project's apps as is
# bound to this ClusterRole in each namespace of the project on a cluster, and nowhere else. The
# built-in `admin` role covers every namespaced kind of the core API (and custom kinds whose
# ClusterRoles aggregate to admin), but neither ResourceQuotas nor the namespace itself.
TENANT_ROLE = "admin"


def tenant_bindings(
    project: str, account: str, homes: Mapping[str, Iterable[str]]
) -> list[dict[str, Any]]:
    """RoleBindings granting `TENANT_ROLE` in each namespace of ``homes`` to ServiceAccount
    ``account`` of each namespace ``homes`` lists for it (where the engine impersonates it)."""
    docs = []
    for namespace, subjects in sorted(homes.items()):
        docs.append(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "RoleBinding",
                "metadata": {"name": f"fleetgen-tenant-{project}", "namespace": namespace},
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": TENANT_ROLE,
                },
                "subjects": [
                    {"kind": "ServiceAccount", "name": account, "namespace": home}
                    for home in sorted(set(subjects))
                ],
            }
        )
    return docs


def service_account(name: str, namespace: str) -> dict[str, Any]:
    """A ServiceAccount, the identity an engine impersonates for a tenant."""
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name, "namespace": namespace},
    }


def tenant_placements(plan: Plan) -> Iterator[tuple[Placement, App, str]]:
    """(placement, its app, the ServiceAccount) of each placement of a project that impersonates
    a ServiceAccount (`Project.service_account`)."""
    accounts = {p.name: p.service_account for p in plan.fleet.projects if p.service_account}
    if not accounts:
        return
    apps = {app.name: app for app in plan.fleet.apps}
    for placement in plan.placements:
        app = apps[placement.app]
        if app.project in accounts:
            yield placement, app, accounts[app.project]


def tenants(plan: Plan) -> dict[str, dict[tuple[str, str], set[str]]]:
    """cluster -> (project, service account) -> the namespaces of that project's apps there."""
    found: dict[str, dict[tuple[str, str], set[str]]] = defaultdict(lambda: defaultdict(set))
    for placement, app, account in tenant_placements(plan):
        found[placement.cluster][(app.project, account)].update(plan.namespaces_of(app))
    return found


def namespace_object(
    name: str, meta: NamespaceMeta | None, annotations: Mapping[str, str]
) -> dict[str, Any]:
    """A Namespace with the labels and annotations its project declares (``meta``), plus the
    engine's own ``annotations``."""
    metadata: dict[str, Any] = {"name": name}
    if meta is not None and meta.labels:
        metadata["labels"] = dict(sorted(meta.labels.items()))
    merged = {**(meta.annotations if meta is not None else {}), **annotations}
    if merged:
        metadata["annotations"] = dict(sorted(merged.items()))
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": metadata}


def account_drains(by_project: Iterable[tuple[str, str]], cluster: str) -> dict[str, str]:
    """ServiceAccount name -> the drain name it is kept for: the first project using it
    (projects may share one)."""
    found: dict[str, str] = {}
    for project, account in sorted(by_project):
        found.setdefault(account, tenant_drain(project, cluster))
    return found
