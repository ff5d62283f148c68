"""Apps whose manifests live elsewhere: a tenant's Git repository (a branch, a tag) and an OCI
artifact (a digest), next to a base of this repository, on both engines."""

from fleetgen import (
                      App,
                      Cluster,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      GitSource,
                      IgnoreDifference,
                      OciSource,
                      Overrides,
                      Project,
                      SyncPolicy,
)

TENANT = "https://git.example.com/team-a/manifests.git"
DIGEST = "sha256:" + "4f" * 32

fleet = Fleet(
    name="sources",
    repo="https://git.example.com/fleet.git",
    engines=["argocd", "flux"],
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    environments=[
        Environment(name="dev", engine="flux", sync=SyncPolicy(automated=True, prune=True)),
        Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True)),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
        Cluster(name="prod-1", env="prod", server="https://prod-1.example.com"),
    ],
    projects=[
        # Derived sourceRepos: the fleet repo (api) and the OCI artifact (guestbook).
        Project(name="platform", namespaces=["api", "guestbook"]),
        # An explicit boundary that the tenant's repository is inside.
        Project(name="team-a", namespaces=["team-a"], source_repos=[TENANT]),
    ],
    apps=[
        App(name="api", project="platform", namespace="api", path="apps/api/base"),
        App(name="tenant", project="team-a", namespace=None,
            source=GitSource(url=TENANT, branch="main", secret_ref="team-a-git"),
            path="deploy/overlays/prod",
            per_env={"prod": Overrides(sync=SyncPolicy(prune=True))}),
        App(name="tenant-pinned", project="team-a", namespace=None,
            source=GitSource(url=TENANT, revision="v1.4.0"), path="deploy/base",
            targets={"envs": ["prod"]}),
        App(name="guestbook", project="platform", namespace=None,
            source=OciSource(url="oci://ghcr.io/example/manifests/guestbook", digest=DIGEST),
            ignore_differences=[IgnoreDifference(group="apps", kind="Deployment",
                                                 json_pointers=["/spec/replicas"])]),
    ],
)
