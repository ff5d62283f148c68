"""The argocd-gitfiles fleet, imported by `fleetgen import` from the Argo CD repository it sits in.
Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from are
untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# appsets/guestbook.yaml:1: AppProject 'default' (Argo CD's built-in project) is renamed 'apps' —
#     fleetgen writes the AppProject of each project: its apps move to 'apps' (rename it in
#     fleet.py at will)
# appsets/teams.yaml:10: ApplicationSet 'teams': its git generator reads revision 'v1.4.0':
#     evaluated on the files here — check that revision holds the same files, or add its apps by
#     hand
# appsets/vendor.yaml:1: ApplicationSet 'vendor': its git generator reads another repository
#     (https://github.com/acme/vendor-config.git) — add its apps by hand
# broken/settings.json:3: ApplicationSet 'broken': its git files generator reads
#     broken/settings.json, which Argo CD cannot read as parameters (did not find expected ',' or
#     '}'): it makes none of the set's Applications — fix the file, rerun import

from fleetgen import (
    App,
    Cluster,
    Environment,
    ExternalSecretRef,
    Fleet,
    Project,
    Selector,
    SyncPolicy,
)

fleet = Fleet(
    name="argocd-gitfiles",
    repo="https://github.com/acme/platform.git",
    engines=["argocd"],
    sync=SyncPolicy(automated=True),
    default_credentials=ExternalSecretRef(store="cluster-secrets", key="clusters/{cluster}"),
    environments=[
        Environment(name="dev"),
        Environment(name="prod"),
        Environment(name="in-cluster"),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.k8s.acme.io"),
        Cluster(name="prod-1", env="prod", server="https://prod-1.k8s.acme.io"),
        Cluster(name="in-cluster", env="in-cluster", server="https://kubernetes.default.svc"),
    ],
    projects=[
        Project(name="apps", namespaces=["guestbook", "team-a"]),
    ],
    apps=[
        App(name="guestbook-dev", project="apps", namespace="guestbook",
            path="apps/guestbook/overlays/dev",
            targets=Selector(envs=["dev"]),
            sync=SyncPolicy(prune=True)),
        App(name="guestbook-prod", project="apps", namespace="guestbook",
            path="apps/guestbook/overlays/prod",
            targets=Selector(envs=["prod"]),
            sync=SyncPolicy(prune=True)),
        App(name="team-a-api", project="apps", namespace="team-a",
            path="teams/team-a/api",
            targets=Selector(envs=["in-cluster"])),
        App(name="team-a-worker", project="apps", namespace="team-a",
            path="teams/team-a/worker",
            targets=Selector(envs=["in-cluster"])),
    ],
)
