"""A DB_PASSWORD value inside a strategic-merge patch (an env var list, as Kubernetes writes it)."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Patch, Project

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              patches=[Patch(target={"kind": "Deployment", "name": "web"},  # <- env
                             patch={"spec": {"template": {"spec": {"containers": [{
                                 "name": "web",
                                 "env": [{"name": "DB_HOST", "value": "db"},
                                         {"name": "DB_PASSWORD", "value": "s3cr" + "3t-Qz9"}],
                             }]}}}}),
                       Patch(target={"kind": "Secret", "name": "web-git"},  # <- token
                             patch={"stringData": {"token": "ghp_" + "AbCdEf0123456789" * 2}})])],
)
