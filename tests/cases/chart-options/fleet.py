"""A chart app's post-render layers and its Flux release and source options, on both engines.

echo (a chart kept in this repository, on the Flux clusters only) takes images and patches from
its app, env and cluster layers: its HelmReleases post-render them. Its chart is checked every
30m, its Helm tests run, and a failed install is retried 3 times. certs (an OCI chart, on every
cluster) is verified by keyless cosign and retries a failed upgrade forever; prod-b runs it on
Argo CD, which has none of these settings: one build warning each, at the HelmChart.
"""

from fleetgen import (
    App,
    ChartVerify,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    HelmChart,
    Image,
    OIDCIdentity,
    Overrides,
    Patch,
    Project,
    Selector,
    SyncPolicy,
)

ECHO_IMAGE = "registry.example.com/echo"
GITHUB = OIDCIdentity(
    issuer="^https://token.actions.githubusercontent.com$",
    subject="^https://github.com/acme/charts/.*$",
)

fleet = Fleet(
    name="charts",
    repo="https://git.example.com/charts.git",
    engines=["argocd", "flux"],  # dev-1 and prod-a on Flux, prod-b on Argo CD
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    sync=SyncPolicy(automated=True, prune=True),
    environments=[
        Environment(name="dev", engine="flux"),
        Environment(name="prod", engine="argocd"),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com", engine="flux"),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),
    ],
    projects=[Project(name="web", namespaces=["web", "cert-manager"])],
    apps=[
        App(
            name="echo", project="web", namespace="web",
            chart=HelmChart(path="charts/echo", interval="30m", test=True, install_retries=3),
            targets=Selector(clusters=["dev-1", "prod-a"]),
            images=[Image(name=ECHO_IMAGE, new_name="mirror.example.com/echo")],
            per_env={"prod": Overrides(images=[Image(name=ECHO_IMAGE, tag="2.1")])},
            per_cluster={
                "prod-a": Overrides(
                    patches=[
                        Patch(
                            target={"kind": "Deployment"},
                            patch={"spec": {"revisionHistoryLimit": 3}},
                        )
                    ]
                )
            },
        ),
        App(
            name="certs", project="web", namespace="cert-manager",
            chart=HelmChart(
                repo="oci://quay.io/jetstack/charts", name="cert-manager", version="v1.16.2",
                interval="1h", upgrade_retries=-1,
                verify=ChartVerify(match_oidc_identity=[GITHUB]),
            ),
            values={"crds": {"enabled": True}},
            cascade_delete=True,
        ),
    ],
)
