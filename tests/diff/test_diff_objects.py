"""Object identity, field paths, renames and deletion semantics of ``diff`` (pure functions)."""

from __future__ import annotations

from typing import Any

from fleetgen.diffs.blast import workloads
from fleetgen.diffs.objects import (
    HUB,
    Field,
    Obj,
    field_changes,
    file_objects,
    flatten,
    rename_key,
    scope_of,
)
from fleetgen.manifests.k8s import Key, identity
from fleetgen.write.output import OutputFile


def test_scope_comes_from_the_files_place() -> None:
    assert scope_of("argocd/applicationsets/web.yaml") == HUB
    assert scope_of("argocd-prod/clusters/prod-a.yaml") == "argocd-prod"  # prod's own Argo CD
    assert scope_of("flux/clusters/prod-a/kustomizations.yaml") == "prod-a"
    path = "overlays/web/prod/kustomization.yaml"
    assert scope_of(path) == path


def test_identity_is_scope_group_kind_namespace_name() -> None:
    doc = {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": "web", "namespace": "flux-system"},
    }
    assert identity("prod-a", doc) == Key(
        "prod-a", "kustomize.toolkit.fluxcd.io", "Kustomization", "flux-system", "web"
    )
    assert identity(
        "x", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}
    ) == Key("x", "", "Namespace", "", "shop")


def test_same_identity_twice_in_a_file_stays_two_objects() -> None:
    doc = {"kind": "ConfigMap", "metadata": {"name": "a"}}
    keys = [obj.key.name for obj in file_objects(OutputFile("overlays/x/y/k.yaml", (doc, doc)))]
    assert keys == ["a", "a#2"]


def test_a_file_that_is_not_yaml_is_one_object() -> None:
    [obj] = file_objects(OutputFile("README.md", text="# fleet\n"))
    assert (obj.key.kind, obj.key.name, obj.doc) == ("File", "README.md", "# fleet\n")
    assert field_changes("a\nb\nc\n", "a\nB\nc\n") == [Field("line 2", "b", "B")]


def test_flatten_keys_lists_by_name_and_assignments() -> None:
    doc = {
        "images": [{"name": "web", "newTag": "1"}, {"name": "api", "newTag": "2"}],
        "literals": ["A=1", "B=x=y"],
        "args": ["--a", "--b"],
        "labels": {"acme.io/team": "t"},
        "ports": [{"port": 1}, {"port": 2}],
        "dup": [{"name": "a"}, {"name": "a"}],
    }
    assert flatten(doc) == {
        "images[name=web].name": "web",
        "images[name=web].newTag": "1",
        "images[name=api].name": "api",
        "images[name=api].newTag": "2",
        "literals[A]": "1",
        "literals[B]": "x=y",
        "args": ["--a", "--b"],
        'labels["acme.io/team"]': "t",
        "ports[0].port": 1,
        "ports[1].port": 2,
        "dup[0].name": "a",
        "dup[1].name": "a",
    }


def test_field_changes_name_absent_leaves_none() -> None:
    old = {"spec": {"a": 1, "b": 2}}
    new = {"spec": {"a": 1, "c": 3, "b": 20}}
    assert field_changes(old, new) == [Field("spec.b", 2, 20), Field("spec.c", None, 3)]
    assert field_changes({"x": None, "y": 1}, {"y": 1}) == [Field("x", None, None)]


def test_rename_key_replaces_whole_name_tokens_only() -> None:
    key = Key("prod-c", "argoproj.io", "Application", "argocd", "web-prod-c")
    assert rename_key(key, {"prod-c": "prod-z"}) == Key(
        "prod-z", "argoproj.io", "Application", "argocd", "web-prod-z"
    )
    other = Key(HUB, "", "Secret", "argocd", "prod-cx")
    assert rename_key(other, {"prod-c": "prod-z"}) == other


def flux(spec: dict[str, Any]) -> Obj:
    doc = {
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": "web", "namespace": "flux-system"},
        "spec": spec,
    }
    return Obj(identity("c", doc), "flux/clusters/c/kustomizations.yaml", doc)


def test_workloads_of_a_deleted_object_follow_what_it_says() -> None:
    assert workloads(flux({"deletionPolicy": "Orphan", "prune": True}), True, {}) == "orphaned"
    assert workloads(flux({"deletionPolicy": "Delete"}), False, {}) == "deleted"
    assert workloads(flux({"prune": True}), False, {}) == "deleted"
    assert workloads(flux({}), True, {}) == "deleted"
    assert workloads(flux({}), False, {}) == "orphaned"
    app = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {
            "name": "web-c",
            "ownerReferences": [{"kind": "ApplicationSet", "name": "web-prod"}],
        },
    }
    application = Obj(identity(HUB, app), "argocd/applicationsets/web.yaml", app)
    preserve = {"web-prod": {"spec": {"syncPolicy": {"preserveResourcesOnDeletion": True}}}}
    assert workloads(application, True, preserve) == "orphaned"
    assert workloads(application, True, {}) == "deleted"
    assert workloads(application, False, {}) == "orphaned"
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "c"}}
    assert workloads(Obj(identity(HUB, secret), "argocd/clusters/c.yaml", secret), True, {}) is None


def test_a_suspended_flux_object_deletes_nothing_when_removed() -> None:
    """kustomize-controller ``finalizerShouldDeleteResources`` returns false for a suspended
    Kustomization whatever its deletionPolicy (v1.7.0), and helm-controller ``reconcileDelete``
    uninstalls a HelmRelease only if it is not suspended (v1.4.5): removing a manual
    environment's objects leaves their workloads (``kept-suspended``)."""
    suspended = {"deletionPolicy": "Delete", "prune": True, "suspend": True}
    assert workloads(flux(suspended), True, {}) == "kept-suspended"
    release = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "echo", "namespace": "flux-system"},
        "spec": {"suspend": True},
    }
    obj = Obj(identity("c", release), "flux/clusters/c/kustomizations.yaml", release)
    assert workloads(obj, True, {}) == "kept-suspended"
    release["spec"] = {}
    assert workloads(Obj(obj.key, obj.file, release), True, {}) == "deleted"


def test_a_flux_object_annotated_prune_disabled_is_kept_with_what_it_holds() -> None:
    """kustomize-controller ``deleteObjects`` (its prune and its finalizer) passes
    ``kustomize.toolkit.fluxcd.io/prune: disabled`` to fluxcd/pkg ``ResourceManager.DeleteAll``
    as an exclusion: such an object is never deleted, whatever else it says (a HelmRelease in
    step 1 of its move to a wrapper was reported ``deleted`` before), nor a Namespace's
    content; an Argo CD object with the annotation is Argo CD's and deleted as before."""
    disabled = {"kustomize.toolkit.fluxcd.io/prune": "disabled"}
    release = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "echo", "namespace": "flux-system", "annotations": disabled},
        "spec": {"suspend": True},
    }
    obj = Obj(identity("c", release), "flux/clusters/c/kustomizations.yaml", release)
    assert workloads(obj, True, {}) == "kept-prune-disabled"
    kustomization = flux({"deletionPolicy": "Delete", "prune": True})
    kustomization.doc["metadata"]["annotations"] = disabled
    assert workloads(kustomization, True, {}) == "kept-prune-disabled"
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod-a"}}
    on_hub = Obj(identity("hub", namespace), "flux/clusters/hub/namespaces.yaml", namespace)
    assert workloads(on_hub, False, {}) == "deleted"
    namespace["metadata"]["annotations"] = disabled
    assert workloads(on_hub, False, {}) == "kept-prune-disabled"
    app = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {
            "name": "web-c",
            "annotations": disabled,
            "finalizers": ["resources-finalizer.argocd.argoproj.io"],
        },
    }
    argo = Obj(identity(HUB, app), "argocd/applicationsets/web.yaml", app)
    assert workloads(argo, True, {}) == "deleted"


def test_removing_one_appproject_destination_is_one_change_not_every_following_index() -> None:
    def project(*clusters: str) -> dict[str, object]:
        return {
            "spec": {
                "destinations": [
                    {"server": f"https://{name}", "name": name, "namespace": namespace}
                    for name in clusters
                    for namespace in ("orders", "payments")
                ]
            }
        }

    changes = field_changes(project("dev", "prod", "staging"), project("dev", "staging"))
    assert {change.path for change in changes} == {
        f"spec.destinations[name=prod,namespace={ns}].{field}"
        for ns in ("orders", "payments")
        for field in ("server", "name", "namespace")
    }
    assert all(change.new is None for change in changes)


def test_appproject_entries_are_compared_by_what_argo_cd_matches_not_by_position() -> None:
    """Argo CD matches a resource list entry by group and kind, and a cluster-scoped one by name
    too (argo-cd ``AppProject.IsGroupKindNamePermitted`` → ``isNamedResourceInList``), and a
    destination by cluster (name or server) and namespace (``isDestinationMatched``): a kept
    entry moved to the end of its list is no change, whatever the other entries hold."""
    crd = {"group": "apiextensions.k8s.io", "kind": "CustomResourceDefinition"}
    namespaces = [{"group": "", "kind": "Namespace", "name": name} for name in ("a", "b")]
    by_server = {"server": "https://in.cluster", "namespace": "a"}
    by_name = [{"name": name, "namespace": "a"} for name in ("dev", "prod")]

    def project(whitelist: list[Any], destinations: list[Any]) -> dict[str, Any]:
        return {"spec": {"clusterResourceWhitelist": whitelist, "destinations": destinations}}

    before = project([crd, *namespaces], [by_server, *by_name])
    assert field_changes(before, project([*namespaces, crd], [*by_name, by_server])) == []
    dropped = field_changes(before, project([crd, namespaces[1]], [by_server, by_name[1]]))
    assert {change.path for change in dropped} == {
        "spec.clusterResourceWhitelist[group=,kind=Namespace,name=a].group",
        "spec.clusterResourceWhitelist[group=,kind=Namespace,name=a].kind",
        "spec.clusterResourceWhitelist[group=,kind=Namespace,name=a].name",
        "spec.destinations[name=dev,namespace=a].name",
        "spec.destinations[name=dev,namespace=a].namespace",
    }
