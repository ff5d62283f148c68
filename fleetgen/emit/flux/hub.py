"""Flux hub mode (``FluxOptions(mode="hub", hub=<cluster>)``): one Flux, on the hub, drives every
cluster. Only ``flux/clusters/<hub>/`` is bootstrapped; it holds:

- ``kustomizations.yaml``: the Kustomizations of the apps placed on the hub itself, in
  ``FluxOptions.namespace``, as in per-cluster mode;
- ``namespaces.yaml``: the hub's app namespaces and one namespace per spoke (named after it);
- ``spokes/<spoke>.yaml``, in the spoke's namespace: how the hub reaches the spoke, a Kustomization
  ``namespaces.fleetgen.io`` that creates the spoke's app namespaces there (from
  ``flux/spokes/<spoke>/``, outside the bootstrapped tree), and one Kustomization per app placed
  on the spoke, all with ``kubeConfig``. The dotted name cannot clash with an app name.

Tenants (``Project(service_account=...)``): the hub impersonates the account of the spoke's
namespace on the spoke, through the kubeConfig (fluxcd/pkg ``Impersonator``): the ServiceAccount
is in the spoke's file on the hub, its RoleBindings in ``flux/spokes/<spoke>/tenants.yaml``.

Order on a spoke: its app Kustomizations ``dependsOn`` ``namespaces.fleetgen.io``. A chart app's
HelmRelease cannot (helm-controller's ``checkDependencies`` gets HelmReleases only, Flux 2.7 to
2.9) and need not: a tenant's release runs as the tenant on the spoke, Helm's storage included
(``buildRESTClientGetter``, ``kube.WithImpersonate``), and stores the release in the app's
namespace (``storageNamespace``), which ``namespaces.fleetgen.io`` creates together with the
account's only RoleBinding there. Until then, reading the release history is refused
(``DetermineReleaseState``): Ready=False with a Forbidden error, retried with the controller's
exponential backoff (``--max-retry-delay``, 15m by default), not a failed install; helm-controller
counts only failures after a release was stored (``Install.Reconcile``), and only those exhaust
``install.remediation.retries`` into Stalled ``RetriesExceeded``. So the release installs at the
first retry after the RoleBinding exists, with no install retries added. A hub-side Kustomization
that waits and applies the HelmRelease instead would move existing releases to a new owner, and the
old owner's prune deletes a HelmRelease, which uninstalls it. The upstream functions this relies
on: tests/emit/test_flux_hub_tenant_charts.py.

Reaching a spoke (exactly one of ``kubeConfig.secretRef`` and ``configMapRef``, as the CRD's CEL
rule demands):

- ``ExternalSecretRef``: an ExternalSecret produces Secret ``kubeconfig`` from property
  ``kubeconfig`` of the referenced store entry, which must hold a self-contained kubeconfig (no
  exec helpers); ``ExternalSecretRef.property`` names what Argo CD reads and is not used here.
- ``AwsAuth`` (workload identity): ConfigMap ``kubeconfig`` with provider ``aws``, the EKS cluster
  ARN (region from the EKS endpoint in ``Cluster.server``, partition and account from the role
  ARN) and ServiceAccount ``flux-identity`` annotated with the role, which kustomize-controller
  assumes with ``--feature-gates=ObjectLevelWorkloadIdentity=true`` (see `warnings`).
- ``ExecAuth`` cannot be translated: Flux's gcp/azure workload identity needs the cluster's cloud
  resource name, which the spec does not carry (`check`).

Sources: by default every Kustomization reads the fleet's GitRepository in ``FluxOptions.namespace``
across namespaces, which the hub's kustomize-controller and helm-controller (``acl.AllowsAccessTo``)
must allow (no ``--no-cross-namespace-refs``; the fleet map says so, and that neither may run with
``--default-service-account``, which spoke objects naming no account would act as on the
spoke: fluxcd/pkg ``setImpersonationConfig``). ``FluxOptions(source_per_namespace=True)``
puts a GitRepository of ``FluxOptions.source`` in each spoke namespace, named after the fleet, which
that spoke's Kustomizations and chart apps read instead.

Rollouts (``rollouts.yaml``): the Kustomizations of an app in wave n wait, through a gate
Kustomization ``<app>.<env>.wave-<n>``, for that app's Kustomizations in its previous wave, so
wave n applies a revision only once wave n-1 is Ready, i.e. healthy (``wait: true``), at that
revision (Flux compares a dependency's applied revision with the shared source's). ``max_update``
is not expressible: a wave's clusters apply together.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

from fleetgen.emit.common import (
    KUSTOMIZATION as KUSTOMIZE_CONFIG,
    account_drains,
    service_account,
    tenants,
)
from fleetgen.emit.flux import alerts, dependencies
from fleetgen.emit.flux.objects import (
    GATE_DIR,
    Home,
    NamespaceFiles,
    Ref,
    account_names,
    app_namespaces,
    cluster_dir,
    created,
    flux_dir,
    kustomization,
    kustomization_files,
    releases_dir,
    remote_source,
    source_file,
    tenant_file,
)
from fleetgen.emit.flux.sources import external_secret
from fleetgen.errors import Problem, at
from fleetgen.inputs.record import cluster_drain
from fleetgen.model import AwsAuth, Cluster, ExecAuth, ExternalSecretRef
from fleetgen.model.fields import ROLE_ARN
from fleetgen.resolver.plan import Plan
from fleetgen.write.output import APP_LABEL, CLUSTER_LABEL, ENV_LABEL, WAVE_LABEL, OutputFile

NAMESPACES_KUSTOMIZATION = "namespaces.fleetgen.io"
KUBECONFIG = "kubeconfig"  # Secret or ConfigMap in each spoke namespace on the hub
KUBECONFIG_PROPERTY = "kubeconfig"  # property of the store entry that holds the kubeconfig
IDENTITY = "flux-identity"  # ServiceAccount whose IAM role the hub assumes for an EKS spoke
WATCH = {"reconcile.fluxcd.io/watch": "Enabled"}  # reconcile at once when the object changes
_EKS_ENDPOINT = re.compile(
    r"https://[^/:]+\.(?P<region>[a-z]{2}(?:-[a-z]+)+-[0-9]+)\.eks\.amazonaws\.com(?:\.cn)?"
    r"(?::443)?/?"
)


def check(plan: Plan) -> list[Problem]:
    """Spokes whose credentials Flux cannot use to reach them from the hub; impersonation; a
    source per namespace without a source to copy."""
    flux = plan.fleet.flux
    if flux.source_per_namespace and flux.source is None:
        return [
            at(
                flux,
                "FluxOptions(source_per_namespace=True) puts a copy of the fleet's "
                "GitRepository in each spoke namespace, and bootstrap's (with its "
                "Secret) lives in flux-system only: set source=GitSource(url=..., "
                "secret_ref=...) with a Secret present in every spoke namespace",
                plan.fleet,
            )
        ]
    problems = []
    for cluster in _spokes(plan):
        credentials = plan.credentials[cluster.name]
        if isinstance(credentials, ExecAuth):
            problems.append(
                at(
                    cluster,
                    f"cluster {cluster.name!r}: ExecAuth credentials cannot "
                    "reach it from a Flux hub (Flux's gcp/azure workload "
                    "identity needs the cluster's cloud resource name, which "
                    "ExecAuth does not carry); give it ExternalSecretRef "
                    "credentials holding a kubeconfig",
                    plan.fleet,
                )
            )
        elif isinstance(credentials, AwsAuth) and not _EKS_ENDPOINT.fullmatch(cluster.server):
            problems.append(
                at(
                    cluster,
                    f"cluster {cluster.name!r}: with AwsAuth, a Flux hub needs "
                    "the EKS cluster ARN, whose region comes from the server "
                    "URL; set server to the EKS endpoint (https://<id>.<zone>."
                    "<region>.eks.amazonaws.com)",
                    plan.fleet,
                )
            )
    return problems


def warnings(plan: Plan) -> list[Problem]:
    """Hub setup the output relies on, and rollout limits."""
    found: list[Problem] = []
    identity = sorted(
        c.name for c in _spokes(plan) if isinstance(plan.credentials[c.name], AwsAuth)
    )
    if identity:
        found.append(
            at(
                plan.fleet.flux,
                f"the Flux hub {plan.fleet.flux.hub} reaches "
                f"{', '.join(identity)} through workload identity: run its "
                "kustomize-controller with --feature-gates=ObjectLevelWorkloadIdentity=true"
                " (a patch in flux-system/kustomization.yaml) and let each IAM role trust "
                f"the hub's ServiceAccount <cluster>/{IDENTITY}",
                plan.fleet,
            )
        )
    charts = sorted(
        {(p.app, p.env) for p in plan.placements if p.wave is not None and p.chart is not None}
    )
    apps = {app.name: app for app in plan.fleet.apps}
    found += [
        at(
            apps[app],
            f"app {app!r} in environment {env!r}: Flux cannot order the "
            "rollout waves of a chart app (a HelmRelease can only wait for "
            "other HelmReleases, not for a rollout gate), so each cluster "
            "installs a merged change at once",
            plan.fleet,
        )
        for app, env in charts
    ]
    placed_envs = {p.env for p in plan.placements if p.wave is not None}
    if plan.fleet.flux.source_per_namespace and placed_envs:
        found.append(
            at(
                plan.fleet.flux,
                "with source_per_namespace, the rollout gates wait for "
                "the previous wave to be Ready but cannot check that it applied the "
                "current revision (Flux compares revisions only between Kustomizations "
                "of one source), so a wave may start before the previous one has the "
                "change",
                plan.fleet,
            )
        )
    found += _unchecked_gates(plan)
    for env in plan.fleet.environments:
        if (
            env.rollout
            and env.name in placed_envs
            and any(step.max_update != "100%" for step in env.rollout.steps)
        ):
            found.append(
                at(
                    env.rollout,
                    f"environment {env.name!r}: Flux orders rollout waves "
                    "but not max_update: a wave's clusters apply together",
                    plan.fleet,
                )
            )
    return found


def _unchecked_gates(plan: Plan) -> list[Problem]:
    """With ``source_per_namespace``, a spoke's gate of an unwrapped chart app reads the spoke
    namespace's GitRepository, the root bootstrap's: ``checkDependencies`` compares no revision."""
    if not plan.fleet.flux.source_per_namespace:
        return []
    spokes = {c.name for c in _spokes(plan)}
    wrapped = dependencies.wrapped(plan.fleet)
    held: dict[str, list[str]] = defaultdict(list)
    for app, cluster in sorted(dependencies.gated(plan)):
        if cluster in spokes and app not in wrapped:
            held[app].append(cluster)
    apps = {app.name: app for app in plan.fleet.apps}
    return [
        at(
            apps[app],
            f"app {app!r}: with source_per_namespace, its gate on {', '.join(clusters)} reads the "
            "spoke's GitRepository and the root another, so it cannot check that the root "
            "applied the current revision: on an upgrade, the apps that depend on it may apply "
            "before its HelmRelease is upgraded (drop source_per_namespace to hold them)",
            plan.fleet,
        )
        for app, clusters in held.items()
    ]


def _spokes(plan: Plan) -> list[Cluster]:
    """Clusters other than the hub with at least one placement, by name."""
    placed = {p.cluster for p in plan.placements} - {plan.fleet.flux.hub}
    return sorted((c for c in plan.fleet.clusters if c.name in placed), key=lambda c: c.name)


def emit(plan: Plan) -> list[OutputFile]:
    """The hub's directory and each spoke's namespaces directory."""
    fleet, hub = plan.fleet, plan.fleet.flux.hub
    assert hub is not None  # resolve checks that hub names a cluster
    if not plan.placements:
        return []
    root = cluster_dir(hub)
    spokes = _spokes(plan)
    homes = {
        hub: Home(
            f"{root}/kustomizations.yaml",
            fleet.flux.namespace,
            f"Flux Kustomizations of the apps placed on the hub, {hub}.",
            releases=releases_dir(hub),
        )
    }
    leading: dict[str, list[dict[str, Any]]] = {}
    kept_for: dict[str, list[str]] = {}  # spoke file -> the drain name of each leading object
    files: list[OutputFile] = []
    namespaces = app_namespaces(plan)
    tenants_on = tenants(plan)
    namespace_files = NamespaceFiles(fleet)
    for spoke in spokes:
        home, objects = _spoke_home(plan, spoke, root)
        homes[spoke.name] = home
        # The hub impersonates the tenant's account of the spoke's namespace on the spoke itself
        # (fluxcd/pkg runtime/client Impersonator.setImpersonationConfig with the kubeConfig).
        accounts = account_names(tenants_on.get(spoke.name, {}))
        leading[home.file] = [
            *objects,
            *(service_account(account, spoke.name) for account in accounts),
        ]
        account_kept = account_drains(tenants_on.get(spoke.name, {}), spoke.name)
        kept_for[home.file] = [cluster_drain(spoke.name)] * len(objects) + [
            account_kept[account] for account in accounts
        ]
        files += _spoke_namespaces(
            namespace_files,
            spoke.name,
            created(fleet, namespaces[spoke.name]),
            tenants_on.get(spoke.name, {}),
        )
    files += tenant_file(
        f"{root}/tenants.yaml", tenants_on.get(hub, {}), fleet.flux.namespace, True, hub
    )
    gated, files_of_gates = _rollout(plan, homes, root)
    files += files_of_gates
    files += kustomization_files(plan, homes, gated, leading, gating=bool(files_of_gates))
    files += alerts.files(
        plan, homes, lambda c: f"{root}/notifications{'' if c == hub else '/' + c}.yaml"
    )
    files += namespace_files.file(
        f"{root}/namespaces.yaml",
        (created(fleet, namespaces.get(hub, ())) | {s.name for s in spokes})
        - {fleet.flux.namespace},
        "Namespaces of the apps on the hub, and one per spoke for its "
        "Kustomizations and credentials.",
    )
    kept = _SpokeDrains(f"{root}/namespaces.yaml", {s.name for s in spokes}, kept_for)
    return [kept.marked(file) for file in files] + source_file(fleet, root)


@dataclass(frozen=True, slots=True)
class _SpokeDrains:
    """What removing a spoke's placements needs while kustomize-controller ``finalize`` deletes
    them through the kubeConfig (`fleetgen.settle.draining`): the leading objects of its file on
    the hub
    (how the hub reaches it, its namespaces Kustomization, the tenants' accounts), its namespace
    on the hub and ``flux/spokes/<spoke>/`` (the RoleBindings the tenants delete with)."""

    namespaces: str  # the hub's namespaces file
    spokes: set[str]
    leading: Mapping[str, list[str]]  # spoke file -> the drain name of each leading object

    def marked(self, file: OutputFile) -> OutputFile:
        """``file`` with what a spoke's removal keeps marked with the spoke's drain name (the
        tenants' accounts and RoleBindings with their project's on the spoke)."""
        if file.path.startswith("flux/spokes/"):
            return file.draining_as(cluster_drain(file.path.split("/")[2]))
        if file.path == self.namespaces:
            names = [doc["metadata"]["name"] for doc in file.documents]
            return replace(
                file, drains=tuple(cluster_drain(n) if n in self.spokes else "" for n in names)
            )
        kept = self.leading.get(file.path)
        if kept is None:
            return file
        return replace(file, drains=(*kept, *("",) * (len(file.documents) - len(kept))))


def _spoke_home(plan: Plan, spoke: Cluster, root: str) -> tuple[Home, list[dict[str, Any]]]:
    """The spoke's Home and the objects its file starts with (credentials, its own source with
    ``source_per_namespace``, namespaces)."""
    kube_config, credentials = _credentials(plan, spoke)
    home = Home(
        f"{root}/spokes/{spoke.name}.yaml",
        spoke.name,
        f"Cluster {spoke.name} ({spoke.env}), reconciled from the hub through kubeConfig.",
        spec={"kubeConfig": kube_config},
        releases=f"{releases_dir(root.rpartition('/')[2])}/{spoke.name}",
    )
    fleet = plan.fleet
    if fleet.flux.source_per_namespace and fleet.flux.source is not None:
        credentials = [*credentials, remote_source(fleet.flux.source, fleet.name, spoke.name)]
        home = replace(home, source={"kind": "GitRepository", "name": fleet.name})
    namespaces = kustomization(
        plan.fleet,
        NAMESPACES_KUSTOMIZATION,
        home,
        f"{flux_dir(plan)}/{_spoke_dir(spoke.name)}",
        prune=True,
        cascade=plan.fleet.cascade_delete,
        labels={CLUSTER_LABEL: spoke.name, ENV_LABEL: spoke.env},
    )
    apps_home = replace(home, depends_on=((spoke.name, NAMESPACES_KUSTOMIZATION),))
    return apps_home, [*credentials, namespaces]


def _credentials(plan: Plan, spoke: Cluster) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``spec.kubeConfig`` for the spoke and the objects it refers to."""
    credentials = plan.credentials[spoke.name]
    if isinstance(credentials, ExternalSecretRef):
        return (
            {"secretRef": {"name": KUBECONFIG, "key": "value"}},
            [
                external_secret(
                    KUBECONFIG,
                    spoke.name,
                    credentials,
                    ("value", KUBECONFIG_PROPERTY),
                    dict(WATCH),
                )
            ],
        )
    if isinstance(credentials, AwsAuth):
        return {"configMapRef": {"name": KUBECONFIG}}, _aws_identity(credentials, spoke)
    raise ValueError(f"cluster {spoke.name!r}: no Flux kubeConfig for {credentials!r}")


def _aws_identity(auth: AwsAuth, spoke: Cluster) -> list[dict[str, Any]]:
    """The ServiceAccount carrying the role and the ConfigMap Flux builds a kubeconfig from."""
    endpoint, role = _EKS_ENDPOINT.fullmatch(spoke.server), ROLE_ARN.fullmatch(auth.role_arn)
    assert endpoint is not None and role is not None  # check() and the model ensure both
    arn = (
        f"arn:{role['partition']}:eks:{endpoint['region']}:{role['account']}:cluster/"
        f"{auth.cluster_name}"
    )
    return [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {
                "name": IDENTITY,
                "namespace": spoke.name,
                "annotations": {"eks.amazonaws.com/role-arn": auth.role_arn},
            },
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": KUBECONFIG, "namespace": spoke.name, "labels": dict(WATCH)},
            "data": {
                "address": spoke.server,
                "cluster": arn,
                "provider": "aws",
                "serviceAccountName": IDENTITY,
            },
        },
    ]


def _spoke_dir(spoke: str) -> str:
    return f"flux/spokes/{spoke}"


def _spoke_namespaces(
    namespace_files: NamespaceFiles,
    spoke: str,
    names: Iterable[str],
    by_project: Mapping[tuple[str, str], set[str]],
) -> list[OutputFile]:
    """``flux/spokes/<spoke>/``: the Namespaces its apps deploy into and the tenants'
    RoleBindings (for accounts of the spoke's namespace on the hub), applied on the spoke."""
    files = namespace_files.file(
        f"{_spoke_dir(spoke)}/namespaces.yaml",
        names,
        f"Namespaces the apps on {spoke} deploy into.",
    )
    files += tenant_file(f"{_spoke_dir(spoke)}/tenants.yaml", by_project, spoke, False, spoke)
    resources = [file.path.rpartition("/")[2] for file in files]
    kustomization_yaml = {**KUSTOMIZE_CONFIG, "resources": resources}
    return [*files, OutputFile(f"{_spoke_dir(spoke)}/kustomization.yaml", (kustomization_yaml,))]


def _rollout(
    plan: Plan, homes: dict[str, Home], root: str
) -> tuple[dict[tuple[str, str], list[Ref]], list[OutputFile]]:
    """Rollout gates: (app, cluster) -> the gate of its wave, and the files of the gates.

    Gate ``<app>.<env>.wave-<n>`` depends on the app's Kustomizations of its previous wave (the
    nearest earlier one that has the app) and applies nothing; the app's wave-n Kustomizations
    depend on it alone. Direct dependencies would list every previous-wave Kustomization in each
    current-wave one: quadratic in the wave size. The dotted name cannot clash with an app's.
    """
    waves: dict[tuple[str, str], dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for placement in plan.placements:
        if placement.wave is not None and placement.chart is None:  # see `warnings`
            waves[(placement.app, placement.env)][placement.wave].append(placement.cluster)
    home = Home(f"{root}/rollouts.yaml", plan.fleet.flux.namespace, _GATES_COMMENT)
    dependencies: dict[tuple[str, str], list[Ref]] = {}
    gates = []
    for (app, env), by_wave in sorted(waves.items()):
        for previous, current in pairwise(sorted(by_wave)):
            name = f"{app}.{env}.wave-{current}"
            gates.append(
                kustomization(
                    plan.fleet,
                    name,
                    home,
                    f"{flux_dir(plan)}/{GATE_DIR}",
                    prune=True,
                    cascade=plan.fleet.cascade_delete,
                    labels={APP_LABEL: app, ENV_LABEL: env, WAVE_LABEL: str(current)},
                    depends_on=[(homes[cluster].namespace, app) for cluster in by_wave[previous]],
                )
            )
            dependencies.update(
                ((app, cluster), [(home.namespace, name)]) for cluster in by_wave[current]
            )
    if not gates:
        return dependencies, []
    files = [
        OutputFile(
            home.file,
            tuple(sorted(gates, key=lambda gate: gate["metadata"]["name"])),
            comment=home.comment,
        )
    ]
    return dependencies, files


_GATES_COMMENT = (
    "Rollout gates: <app>.<env>.wave-<n> is Ready once the app's previous wave is\n"
    "Ready (healthy) at the current revision; the app's wave-n Kustomizations wait "
    "for it."
)
