"""An Image naming an image the base does not have, as kustomize matches names.

kustomize's ``image.IsImageMatched`` (api/internal/image) matches the whole reference up to the
tag or digest, so ``nginx`` does not match the base's ``docker.io/library/nginx:1.27``: the
override would change nothing.
"""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Image, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="api", project="shop", namespace="shop", path="apps/shop/base",
              images=[Image(name="registry.example.com/shop/api", tag="1.5"),
                      Image(name="busybox", tag="1.37"),
                      Image(name="nginx", tag="1.28")])],  # <- here
)
