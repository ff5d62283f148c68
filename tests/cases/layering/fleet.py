"""Every layer sets something: fleet, env, app, per_env, per_cluster."""

from fleetgen import (
                      App,
                      Cluster,
                      Environment,
                      ExternalSecretRef,
                      Fleet,
                      Image,
                      Overrides,
                      Patch,
                      Project,
                      SyncPolicy,
)

fleet = Fleet(
    name="layers",
    repo="https://git.example.com/layers.git",
    engines=["argocd", "flux"],  # dev and prod-a on Flux, prod-b on Argo CD
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{cluster}"),
    common_labels={"team": "web"},
    environments=[
        Environment(name="dev", engine="flux", sync=SyncPolicy(automated=True)),
        Environment(name="prod", engine="argocd", sync=SyncPolicy(automated=True, self_heal=True),
                    common_annotations={"example.com/tier": "production"}),
    ],
    clusters=[
        Cluster(name="dev-1", env="dev", server="https://dev-1.example.com"),
        Cluster(name="prod-a", env="prod", server="https://prod-a.example.com", engine="flux"),
        Cluster(name="prod-b", env="prod", server="https://prod-b.example.com"),
    ],
    projects=[Project(name="web", namespaces=["web"])],
    apps=[
        App(
            name="web", project="web", namespace="web", path="apps/web/base",
            images=[Image(name="web", new_name="registry.example.com/web", tag="1.0.0"),
                    Image(name="envoy", tag="v1.30")],
            replicas={"web": 2},
            config={"web-config": {"LEVEL": "app", "QUIRKS": "no"},
                    "web-extra": {"CREATED": "by-app"}},
            per_env={
                "prod": Overrides(
                    images=[Image(name="web", tag="1.0.1")],
                    replicas={"web": 4},
                    config={"web-config": {"LEVEL": "prod", "QUOTED": '"kept"',
                                           "TEMPLATE": "{{ .Values.x }} ${HOME}"}},
                ),
            },
            per_cluster={
                "prod-b": Overrides(
                    images=[Image(name="web", new_name="mirror.example.com/web",
                                  digest="sha256:" + "ab" * 32)],
                    replicas={"web": 1},
                    config={"web-config": {"LEVEL": "prod-b", "OCTAL": "012"},
                            "web-extra": {"CREATED": "by-prod-b"}},
                    common_labels={"ring": "second"},
                    patches=[Patch(target={"kind": "Deployment", "name": "web"},
                                   patch=[{"op": "add", "path": "/spec/minReadySeconds",
                                           "value": 5}])],
                ),
            },
        ),
    ],
)
