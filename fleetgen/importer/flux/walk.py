"""A Flux cluster folder followed through what it applies, object by object: a Kustomization
whose folder holds only Flux objects (releases, their sources, further Kustomizations, a
tenant's accounts) is followed into them; any other is an app of its folder or source, a
HelmRelease a chart app; each app's dependencies named as the apps it depends on."""

from __future__ import annotations

from collections.abc import Iterable

from fleetgen.importer.draft import Instance
from fleetgen.importer.findings import Finding
from fleetgen.importer.flux.alerts import alerts, is_notice, provider_secrets
from fleetgen.importer.flux.common import (
    HELM,
    KUSTOMIZE,
    ROOT,
    SOURCE,
    SOURCES,
    Applied,
    Pending,
    Walk,
    is_flux,
    key,
)
from fleetgen.importer.flux.generators import is_generator, register, unpacked
from fleetgen.importer.flux.hub import cluster_of, is_kubeconfig
from fleetgen.importer.flux.kustomizations import (
    added_fields,
    followed_findings,
    local_app,
    source_app,
)
from fleetgen.importer.flux.releases import release, values_maps
from fleetgen.importer.flux.substitute import left_findings, substituted, variables
from fleetgen.importer.flux.tenancy import default_account, is_tenancy_kind, tenancy, tenant
from fleetgen.importer.repo import Doc, mapping, relative_path
from fleetgen.model.fields import to_dns_label

_AUTOMATION = (
    "fleetgen has no image automation: keep it in a folder of its own added as an app, and "
    "point its updates at fleet.py (Image tags)"
)
# Flux objects import does not map, and what to do instead.
_FLUX_KINDS = {
    "ExternalArtifact": "its artifact is made by a controller from files import cannot read: "
    "add the apps that read it by hand",
    "Bucket": "fleetgen reads Git and OCI sources: move the manifests there",
    "ImageRepository": _AUTOMATION,
    "ImagePolicy": _AUTOMATION,
    "ImageUpdateAutomation": _AUTOMATION,
    "Receiver": "keep it in a folder of its own, added as an app",
}


def follow(walk: Walk, folder: str) -> None:
    """Follow ``folder`` and everything it applies into instances."""
    inside = f"{folder}/{ROOT}/"
    _controller_patches(walk, f"{folder}/{ROOT}")
    docs = [d for d in walk.deployed(folder, None) if not d.file.startswith(inside)]
    _apply(walk, docs, None, walk.cluster)
    made = [item if isinstance(item, Instance) else release(walk, item) for item in walk.found]
    mine = [instance for instance in made if instance is not None]
    mine += _settle(walk)
    tenancy(walk, mine)
    walk.draft.findings += [_loose(doc) for doc in walk.loose if not is_kubeconfig(walk, doc)]
    for instance in mine:
        instance.depends_on = _depends(walk, instance, mine)
    alerts(walk, mine)
    walk.draft.instances += mine


def _controller_patches(walk: Walk, folder: str) -> None:
    """Patches of Flux's own controllers (bootstrap's kustomization.yaml): Flux's
    installation, which fleetgen leaves to bootstrap."""
    for name in ("kustomization.yaml", "kustomization.yml"):
        doc = walk.repo.kustomizations.get(f"{folder}/{name}")
        if doc is not None and doc.obj.get("patches"):
            walk.draft.findings.append(
                doc.finding(
                    "patches of Flux's own controllers (bootstrap's kustomization)",
                    "kept where they are: fleetgen leaves Flux's installation to flux "
                    "bootstrap, which keeps this file",
                    ("patches",),
                )
            )
            walk.draft.findings += default_account(doc)


def _apply(walk: Walk, docs: Iterable[Doc], parent: Doc | None, cluster: str) -> None:
    """Each object ``parent`` (None: the cluster folder) applies on ``cluster``, by kind (the
    ArtifactGenerators first, whose artifacts the Kustomizations beside them read)."""
    docs = list(docs)
    secrets = provider_secrets(docs)
    for doc in docs:
        if is_generator(doc):
            register(walk, doc)
    for doc in docs:
        if is_flux(doc):
            walk.applies(doc)
        if is_generator(doc):
            continue
        if doc.is_(KUSTOMIZE, "Kustomization"):
            _kustomization(walk, doc, parent)
        elif doc.is_(HELM, "HelmRelease"):
            walk.found.append(Applied(doc, parent))
            walk.made(to_dns_label(doc.name, "app"), parent)
        elif any(doc.is_(SOURCE, kind) for kind in SOURCES):
            walk.sources.setdefault((doc.kind, doc.namespace, doc.name), doc)
        elif is_tenancy_kind(doc):
            walk.tenancy.append((doc, cluster))
        elif doc.kind == "ConfigMap" and doc.group == "" and parent is not None:
            walk.configmaps[key(doc)] = doc  # values of a release there
        elif is_notice(doc) or doc in secrets:
            walk.notices.append(doc)
        else:
            walk.loose.append(doc)


def _kustomization(walk: Walk, doc: Doc, parent: Doc | None) -> None:
    """A Kustomization: followed into its folder, or an app of its folder or source."""
    if doc.name == ROOT:
        return
    cluster = cluster_of(walk, doc)
    path = relative_path(str(doc.spec.get("path", "") or "."))
    if path is None or cluster is None:
        if path is None:
            walk.draft.findings.append(
                doc.finding(
                    f"Kustomization {doc.name!r}: path leaves the repository",
                    "point it inside the repository",
                    ("spec", "path"),
                )
            )
        return
    ref = mapping(doc.spec.get("sourceRef"))
    if ref.get("kind") == "ExternalArtifact":
        found = unpacked(walk, doc, path, ref)
        if found is None:
            return
        path = found
    elif not walk.is_root(ref, doc):
        instance = source_app(walk, doc, path, ref, cluster)
        if instance is not None:
            _found(walk, instance, doc, parent)
        return
    added = added_fields(doc.spec)
    built = walk.deployed(path, doc, added)
    done = substituted(built, variables(doc.spec))
    walk.draft.findings += left_findings(doc, done)
    if _only_flux(done.docs) and (walk.repo.has_kustomization(path) or not added):
        _follow(walk, doc, parent, done.docs, cluster)
    elif _only_accounts(done.docs):
        walk.produced.setdefault(key(doc), [])
        walk.pending.append(Pending(doc, parent, path, built, done.docs, cluster))
    else:
        _found(walk, local_app(walk, doc, path, built, done.docs, cluster), doc, parent)


def _follow(walk: Walk, doc: Doc, parent: Doc | None, deployed: list[Doc], cluster: str) -> None:
    """A Kustomization whose folder holds only Flux objects: followed into them (on a spoke,
    they would be its own Flux's: a finding)."""
    if cluster != walk.cluster:
        walk.draft.findings.append(
            doc.finding(
                f"Kustomization {doc.name!r} applies Flux objects on the spoke {cluster!r}, "
                "which its own Flux reconciles",
                "import that cluster's folder on its own, or move them to the hub",
                ("spec", "kubeConfig"),
            )
        )
        return
    walk.draft.findings += followed_findings(doc)
    walk.parent_of[key(doc)] = parent
    walk.produced.setdefault(key(doc), [])
    _apply(walk, deployed, doc, cluster)


def _settle(walk: Walk) -> list[Instance]:
    """The Kustomizations of folders of accounts only: a tenant's accounts where a Flux object
    runs as one of them (applied where the Kustomization applies), else apps."""
    apps = []
    for item in walk.pending:
        if walk.named.keys() & {key(doc) for doc in item.deployed if doc.kind == "ServiceAccount"}:
            walk.draft.findings += followed_findings(item.doc)
            walk.tenancy += [(doc, item.cluster) for doc in item.deployed]
            continue
        instance = local_app(walk, item.doc, item.path, item.built, item.deployed, item.cluster)
        _found(walk, instance, item.doc, item.parent)
        apps.append(instance)
    return apps


def _found(walk: Walk, instance: Instance, doc: Doc, parent: Doc | None) -> None:
    """The app of a Kustomization ``parent`` applies: made by both, depending on what they
    depend on, a tenant's if it runs as a ServiceAccount."""
    walk.produced.setdefault(key(doc), []).append(instance.name)
    walk.made(instance.name, parent)
    instance.depends_on += walk.inherited(parent)
    tenant(walk, instance, doc)
    walk.found.append(instance)


# Why a dependsOn is not kept: (nothing of its name is applied, what it makes is elsewhere).
_UNKEPT = {
    (True, False): "nothing of that name is applied on",
    (False, True): "what it makes is not applied on",
    (False, False): "it makes no app of its own on",
}


def _depends(walk: Walk, instance: Instance, instances: list[Instance]) -> list[str]:
    """The instances on its cluster an instance's dependsOn names (``namespace/name``; a
    Kustomization: what it made; a HelmRelease: its app)."""
    names = {i.name for i in instances}
    here = {(i.origin.namespace, i.name) for i in instances if i.cluster == instance.cluster}
    found: list[str] = []
    for ref in instance.depends_on:
        namespace, _, name = ref.partition("/")
        label = to_dns_label(name, "app")
        made = walk.produced.get((namespace, name), [label] if (namespace, label) in here else None)
        kept = [m for m in made or [] if m in {n for _, n in here}]
        elsewhere = not kept and any(m in names for m in made or [])  # else: not mapped, said
        if made is None or elsewhere or not made:
            what = f"dependsOn {name!r}: {_UNKEPT[(made is None, elsewhere)]} {instance.cluster!r}"
            todo = "add depends_on by hand" + ("" if made else " where the order matters")
            walk.draft.findings.append(instance.origin.finding(what, todo))
        found += [m for m in kept if m != instance.name]
    return sorted(set(found))


def _only_accounts(docs: list[Doc]) -> bool:
    """Whether a folder holds only Namespaces, ServiceAccounts and their bindings, and at least
    one ServiceAccount (which Flux objects may run as)."""
    return all(is_tenancy_kind(doc) for doc in docs) and any(
        doc.kind == "ServiceAccount" for doc in docs
    )


def _only_flux(docs: list[Doc]) -> bool:
    """Whether a folder holds only what import follows (Flux objects, the ConfigMaps of their
    values, a tenant's accounts, the Secrets of Providers) and at least one Kustomization,
    HelmRelease, Alert or Provider."""
    values = {ref for doc in docs if doc.is_(HELM, "HelmRelease") for ref in values_maps(doc)}
    secrets = provider_secrets(docs)
    followed = (
        is_flux(doc)
        or is_notice(doc)
        or doc in secrets
        or is_generator(doc)
        or any(doc.is_(SOURCE, kind) for kind in SOURCES)
        or is_tenancy_kind(doc)
        or (doc.group, doc.kind, doc.namespace, doc.name) in values
        for doc in docs
    )
    return all(followed) and any(
        (is_flux(doc) and doc.name != ROOT) or is_notice(doc) for doc in docs
    )


def _loose(doc: Doc) -> Finding:
    """The finding of an object a cluster folder applies that import does not follow."""
    if doc.group.endswith("toolkit.fluxcd.io") or doc.group.endswith("extensions.fluxcd.io"):
        todo = _FLUX_KINDS.get(doc.kind, "add it by hand, or keep it in an app's folder")
        return doc.finding(f"Flux {doc.kind} {doc.name!r} not mapped", todo)
    return doc.finding(
        f"{doc.kind} {doc.name!r} applied from the cluster folder itself",
        "fleetgen applies apps, not loose objects: move it into a folder of its own and add "
        "that folder as an app",
    )
