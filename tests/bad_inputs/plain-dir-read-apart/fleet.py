"""A plain directory (no kustomization.yaml) whose files the two engines would read apart, in the
app's namespace: objects in another namespace, a binding subject Flux's targetNamespace fills in,
a file only Argo CD reads, one it skips, a hidden one, a YAML file that is no object, a folder
with a kustomization, and one object twice."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="mixed", project="shop", namespace="shop", path="apps/mixed")],  # <- here
)
