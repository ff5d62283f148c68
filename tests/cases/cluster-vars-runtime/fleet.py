"""Per-cluster variables of apps whose ApplicationSets select clusters at run time
(Selector(runtime=True)): Helm values and the source path read each var from the selected
cluster Secret's annotation fleetgen.io/var.<name>, and the generation fails where one is
missing. fleetgen writes the annotations on the registrations it owns (mgmt); the external
clusters' owner sets them (output/README.md lists them)."""

from fleetgen import (
    App,
    Cluster,
    ClusterVar,
    Destination,
    Environment,
    ExternalSecretRef,
    Fleet,
    GitSource,
    HelmChart,
    Overrides,
    Project,
    Selector,
    SyncPolicy,
)

fleet = Fleet(
    name="edge",
    repo="https://git.example.com/edge.git",
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="mgmt", sync=SyncPolicy(automated=True)),
        Environment(name="prod", sync=SyncPolicy(automated=True, prune=True)),
    ],
    clusters=[
        Cluster(name="mgmt", env="mgmt", server="https://kubernetes.default.svc",
                labels={"tier": "edge"},
                vars={"region": "eu-central-1", "site": "hq", "dir": "sites/hq"}),
        Cluster(name="core-1", env="prod", server="https://core-1.example.com",
                labels={"tier": "core"}, vars={"region": "eu-west-1"}),
        # Registered by Terraform, which also sets the fleetgen.io/var.* annotations.
        Cluster(name="edge-1", env="prod", server="https://edge-1.example.com",
                registration="external", labels={"tier": "edge"},
                vars={"region": "eu-north-1", "site": "{{ .name }} ${SITE}",
                      "dir": "sites/edge"}),
    ],
    projects=[
        Project(name="platform", namespaces=["api"]),
        Project(name="edge", namespaces=["agent", "api"],
                destinations=[Destination(server="*", namespace="*")]),
    ],
    apps=[
        # Known clusters, selected by name: filled in at build, config included.
        App(name="api", project="platform", namespace="api", path="apps/api/base",
            targets=Selector(match_labels={"tier": "core"}),
            config={"api-config": {"REGION": ClusterVar("region")}}),
        # Selected at run time: the template reads the annotations.
        App(name="agent", project="edge", namespace="agent",
            chart=HelmChart(repo="oci://registry.example.com/charts", name="agent",
                            version="1.4.2"),
            targets=Selector(match_labels={"tier": "edge"}, runtime=True),
            values={"region": ClusterVar("region"), "tags": ["edge", ClusterVar("site")],
                    "literal": "{{ not a var }}"},
            per_env={"prod": Overrides(values={"proxy": None})},
            # A label the selector requires: every cluster it selects has it, so one generator.
            per_label={"tier=edge": Overrides(values={"edge": True})}),
        App(name="edge-api", project="edge", namespace=None,
            source=GitSource(url="https://git.example.com/sites.git", revision="v3.0.0"),
            path=ClusterVar("dir"),
            targets=Selector(match_labels={"tier": "edge"}, runtime=True)),
    ],
)
