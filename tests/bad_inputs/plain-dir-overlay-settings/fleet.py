"""An app path holding manifests but no kustomization.yaml (a plain directory, read without
overlay) with settings that only an overlay applies, at every layer."""

from fleetgen import (
    App,
    AppSecret,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Image,
    Overrides,
    Project,
)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443", labels={"tier": "a"})],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[
        App(  # <- app-level common_labels, images, secrets
            name="raw",
            project="shop",
            namespace="shop",
            path="apps/raw",
            images=[Image(name="worker", tag="1.2.3")],
            common_labels={"team": "shop"},
            secrets=[AppSecret(name="db", store="vault", data={"password": "db#password"})],
            per_env={"dev": Overrides(replicas={"worker": 2})},  # <- per_env replicas
            per_label={"tier=a": Overrides(config={"worker": {"MODE": "x"}})},  # <- per_label
            per_cluster={"dev-1": Overrides(common_annotations={"a": "b"})},  # <- per_cluster
        )
    ],
)
