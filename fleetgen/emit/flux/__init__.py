"""The Flux emitter: ``flux/clusters/<cluster>/``, the path ``flux bootstrap --path`` points at.

Per-cluster mode (the default; each cluster runs its own Flux, bootstrapped with
``flux bootstrap <provider> --path=<output_dir>/flux/clusters/<cluster>``): each cluster directory
holds ``kustomizations.yaml`` (one Kustomization per app placed there, named after the app),
``namespaces.yaml`` (the Namespaces those apps deploy into: Flux creates none; none at all with
``Fleet(create_namespaces=False)``) and, with
``FluxOptions(source=GitSource(...))``, ``source.yaml`` (the GitRepository they read instead of
bootstrap's); with tenants (``Project(service_account=...)``), ``tenants.yaml``: the account in
the Flux namespace, which the project's Kustomizations impersonate, bound to ClusterRole admin in
the namespaces of the project's apps there. An app from another source (``App(source=...)``)
gets its own GitRepository or OCIRepository next to its Kustomization.
Hub mode (``FluxOptions(mode="hub", hub=...)``): see `fleetgen.emit.flux.hub`. ``check`` and
``warnings`` are in `fleetgen.emit.flux.checks`, ``emit`` in `fleetgen.emit.flux.per_cluster`.

How the Plan translates (`fleetgen.emit.flux.objects` builds the objects):

- ``spec.path`` is the placement's overlay, the one an Argo CD Application would use, so either
  engine deploys the same rendered manifests. No ``targetNamespace``: the overlay already sets
  ``namespace:`` and Flux's would be a second, engine-only transformation. An app without
  overlay reads its directory (``./<path>``): of its own GitRepository or OCIRepository (another
  source), or of the fleet's repository (a plain directory, built by kustomize-controller's
  generated kustomization, with the app's namespace as ``targetNamespace``). No ``postBuild``,
  ``patches`` or ``images``: a ``${...}`` in a user value reaches the cluster unchanged.
- ``prune`` from the effective sync policy; ``suspend: true`` where it is not automated (releasing
  means changing fleet.py: the root Kustomization re-applies ``suspend``, so ``flux resume`` does
  not last); ``retryInterval`` from its ``retry`` (the backoff ceiling: Flux retries at a fixed
  period); ``wait: true``, so that Ready, which ``dependsOn`` waits for, means healthy.
- ``deletionPolicy: Orphan`` unless ``Fleet(cascade_delete=True)`` (then ``Delete``); generated
  Namespaces are likewise never pruned, since deleting a Namespace deletes its workloads.
- ``labels``/``annotations`` from the app's, except keys under ``argoproj.io/`` (Argo CD's).
- ``dependsOn`` from ``depends_on``: Flux resolves it on the cluster that holds the
  Kustomizations, so the dependency must be placed on the same cluster (`check`); across kinds
  through gates and wrappers (`fleetgen.emit.flux.dependencies`).
- ``ignore`` from the JSON pointers of ``ignore_differences``, when ``FluxOptions(min_version)``
  is at least 2.9 (older Flux has no such field); `warnings` names what Flux cannot mirror (jq
  paths, managed-field managers, any rule below 2.9).
- Not expressible in Flux, by design: ``self_heal=False`` (Flux corrects drift every
  ``interval``), Argo CD ``sync_options``, ``allow_empty``; and, per cluster, rollout order.

Flux bootstrap owns ``flux/clusters/<cluster>/flux-system/`` (the writer never touches a
``flux-system`` path) and the GitRepository and Kustomization named after its namespace: fleetgen
emits no object of that name there.
"""

from fleetgen.emit.flux.checks import check, warnings
from fleetgen.emit.flux.per_cluster import emit

__all__ = ["check", "emit", "warnings"]
