"""Per-cluster variables on clusters fleetgen knows, on both engines: each cluster's
Cluster(vars=...) fills the ClusterVars of config values (into its own overlay), Helm values
(nested in maps and lists), a layer's namespace (prod's web, written in each cluster's overlay;
staging's ingress release) and the directory of another source, at build. A value holding
'{{' or '${' stays literal text."""

from fleetgen import (
    App,
    Cluster,
    ClusterVar,
    Environment,
    ExternalSecretRef,
    Fleet,
    GitSource,
    HelmChart,
    Overrides,
    Project,
    SyncPolicy,
)

fleet = Fleet(
    name="regions",
    cascade_delete=True,
    repo="https://git.example.com/regions.git",
    engines=["argocd", "flux"],  # eu-1 and us-1 on Argo CD, ap-1 on Flux
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="staging", engine="flux", sync=SyncPolicy(automated=True)),
        Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True, prune=True)),
    ],
    clusters=[
        Cluster(name="ap-1", env="staging", server="https://ap-1.example.com",
                vars={"region": "ap-southeast-2", "host": "ap.staging.example.com",
                      "motd": "{{ .Values.x }} ${HOME}", "tenant_dir": "staging/ap",
                      "ingress_ns": "ingress-ap"}),
        Cluster(name="eu-1", env="prod", server="https://eu-1.example.com",
                vars={"region": "eu-west-1", "host": "eu.example.com", "motd": "hello eu",
                      "tenant_dir": "prod/eu", "web_ns": "web-eu"}),
        Cluster(name="us-1", env="prod", server="https://us-1.example.com",
                vars={"region": "us-east-1", "host": "us.example.com", "motd": "hello {{us}}",
                      "tenant_dir": "prod/us", "web_ns": "web-us"}),
    ],
    projects=[Project(name="web", namespaces=["web", "web-*", "ingress", "ingress-*", "tenant"])],
    apps=[
        # Config: the env overlay leaves REGION out, each cluster's overlay sets its value.
        App(name="web", project="web", namespace="web", path="apps/web/base",
            config={"web-config": {"REGION": ClusterVar("region"), "MODE": "shared"}},
            per_env={"prod": Overrides(config={"web-config": {"MOTD": ClusterVar("motd")}},
                                       namespace=ClusterVar("web_ns"))}),
        # Helm values: per cluster on both engines, at any depth.
        App(name="ingress", project="web", namespace="ingress",
            chart=HelmChart(repo="https://charts.example.com", name="ingress", version="4.10.0"),
            values={"controller": {"region": ClusterVar("region"), "replicas": 2},
                    "hosts": [ClusterVar("host"), "static.example.com"],
                    "banner": ClusterVar("motd")},
            per_env={"staging": Overrides(namespace=ClusterVar("ingress_ns"))}),
        # Another source: the directory per cluster.
        App(name="tenant", project="web", namespace=None,
            source=GitSource(url="https://git.example.com/tenant.git", revision="v1.2.0"),
            path=ClusterVar("tenant_dir")),
    ],
)
