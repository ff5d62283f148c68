"""What an ApplicationSet that selects clusters at run time (Selector(runtime=True)) cannot
carry, all reported at once: a kustomize app's per_label layer and a secret read per cluster
(both written into each cluster's own overlay, which a cluster unknown to fleet.py has not),
and a chart app's per_label layer for a label the selector does not require (every selected
cluster would get it: each generator selects them all, and the ApplicationSet controller refuses
the duplicate Applications, applicationset_controller.go ``validateGeneratedApplications``:
"contains applications with duplicate name")."""

from fleetgen import (
    App,
    AppSecret,
    Cluster,
    Destination,
    Environment,
    ExternalSecretRef,
    Fleet,
    HelmChart,
    Overrides,
    Project,
    Selector,
)

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    engines=["argocd"],
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443",
                      registration="external", labels={"tier": "edge", "zone": "a"})],
    projects=[Project(name="shop", namespaces=["shop"],
                      destinations=[Destination(server="*", namespace="shop")])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",
              targets=Selector(match_labels={"tier": "edge"}, runtime=True),
              secrets=[AppSecret(name="db", store="vault-backend",  # <- here
                                 data={"PW": "apps/{cluster}#pw"})],
              per_label={"tier=edge": Overrides(replicas={"web": 2})}),  # <- here
          App(name="cache", project="shop", namespace="shop",
              chart=HelmChart(repo="https://charts.example.com", name="redis", version="1.2.3"),
              targets=Selector(match_labels={"tier": "edge"}, runtime=True),
              per_label={"tier=edge": Overrides(values={"edge": True}),  # allowed: required
                         "zone=a": Overrides(values={"zone": "a"})})],  # <- here
)
