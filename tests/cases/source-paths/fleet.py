"""Source paths per layer (Overrides(path=...)): a tenant's repository read at ./staging in one
environment and ./production in the other, a region reading its own directory (per_label), a
canary cluster its own (per_cluster), and an OCI artifact's directory per environment, on both
engines."""

from fleetgen import (
                      App,
                      Cluster,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      GitSource,
                      OciSource,
                      Overrides,
                      Project,
                      SyncPolicy,
)

TENANT = "https://git.example.com/team-a/manifests.git"
DIGEST = "sha256:" + "5e" * 32

fleet = Fleet(
    name="source-paths",
    repo="https://git.example.com/fleet.git",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="staging", engine="flux", sync=SyncPolicy(automated=True, prune=True)),
        Environment(name="production", engine="argocd", sync=SyncPolicy(automated=True)),
    ],
    clusters=[
        Cluster(name="stg-1", env="staging", server="https://stg-1.example.com"),
        Cluster(name="prod-eu", env="production", server="https://prod-eu.example.com",
                labels={"region": "eu"}),
        Cluster(name="prod-us", env="production", server="https://prod-us.example.com",
                labels={"region": "us"}),
        Cluster(name="prod-canary", env="production", server="https://prod-canary.example.com",
                labels={"region": "eu"}),
    ],
    projects=[
        Project(name="team-a", namespaces=["team-a"], source_repos=[TENANT]),
        Project(name="platform", namespaces=["guestbook"]),
    ],
    apps=[
        # The tenant's repository has no base at its root: each environment reads its own
        # directory, US clusters their region's, the canary its own.
        App(name="tenant", project="team-a", namespace=None,
            source=GitSource(url=TENANT, branch="main"),
            per_env={"staging": Overrides(path="./staging"),
                     "production": Overrides(path="./production")},
            per_label={"region=us": Overrides(path="production/us")},
            per_cluster={"prod-canary": Overrides(path="canary/")}),
        # App.path in every environment but staging.
        App(name="guestbook", project="platform", namespace=None,
            source=OciSource(url="oci://ghcr.io/example/manifests/guestbook", digest=DIGEST),
            path="deploy",
            per_env={"staging": Overrides(path="deploy-staging")}),
    ],
)
