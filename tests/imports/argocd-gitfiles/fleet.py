"""The argocd-gitfiles fleet, imported by `fleetgen import` from the Argo CD repository it sits in.
Review it, then `fleetgen build` compiles it into output/; commit both. The files it came from are
untouched: retire them once the engines read output/.
"""

# fleetgen import could not map everything; fix each, then delete its lines:
# appsets/broken.yaml:8: ApplicationSet 'broken': its git files generator reads
#     broken/settings.json:3, which Argo CD cannot read as parameters (did not find expected ',' or
#     '}'): it makes none of the set's Applications — fix the file and rerun import, or add its
#     apps by hand
# appsets/guestbook.yaml:1: AppProject 'default' (Argo CD's built-in project) is renamed 'apps' —
#     fleetgen writes the AppProject of each project: its apps move to 'apps' (rename it in
#     fleet.py at will)
# appsets/teams.yaml:12: ApplicationSet 'teams': its git generator reads this repository at
#     revision 'v1.4.0', the fleet at 'main': imported from the files here — fleetgen reads one
#     revision of its repository (Fleet(revision=...)): check that revision holds these files, or
#     add it by hand
# appsets/vendor.yaml:1: ApplicationSet 'vendor': its git generator reads another repository
#     (https://github.com/acme/vendor-config.git) — add its apps by hand

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
