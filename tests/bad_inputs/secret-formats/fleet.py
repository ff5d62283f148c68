"""One literal of each token format in a config value: each refused at its line, none echoed."""

from fleetgen import App, Cluster, Environment, ExternalSecretRef, Fleet, Overrides, Project

KUBECONFIG = "\n".join(["apiVersion: v1", "kind: Config", "users:", "- name: admin", "  user:",
                        "    client-key-data: " + "LS0tLS1CRUdJTi" + "Bsb3JlbQ=="])
DOCKER = '{"auths": {"registry.acme.example": {"auth": "' + "ZGVwbG95" + 'OnMzY3IzdA=="}}}'
TOKENS = {  # config key -> a literal of one format, assembled so that no scanner trips on it
    "GITLAB": "glpat-" + "x1Y2z3A4b5C6d7E8f9G0",
    "NPMRC": "//registry.npmjs.org/:_authToken=npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "TWINE": "pypi-AgE" + "IcHlwaS5vcmcCJGE4ZjYxNjAwLTc5YjktNGM5OS04",
    "SLACK_BOT": "xoxb-" + "123456789012-abcdefABCDEF",
    "MAIL": "SG." + "aBcDeFgHiJkLmNoPqRsTuV" + "." + "wXyZ0123456789aBcDeFgHiJkLmNoP",
    "LLM": "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t",
    "ALERTS": "https://hooks.slack.com/services/" + "T01ABCDEF/B02GHIJKL/q1w2e3r4t5y6u7i8",
    "TEAMS": "https://acme.webhook.office.com/" + "webhookb2/1234@5678/IncomingWebhook/zx9",
    "STORAGE": "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + "Zm9vYmFyYmF6" * 3,
    "AWS_ID": "AKIA" + "Z7Q4EXAMPLEK3Y9W",
}

fleet = Fleet(
    name="shop",
    repo="https://github.com/acme/shop-fleet.git",
    default_credentials=ExternalSecretRef(store="vault-backend", key="clusters/{cluster}"),
    environments=[Environment(name="dev")],
    clusters=[Cluster(name="dev-1", env="dev", server="https://dev-1.example:6443")],
    projects=[Project(name="shop", namespaces=["shop"])],
    apps=[App(name="web", project="shop", namespace="shop", path="apps/web/base",  # <- tokens
              config={"web-config": TOKENS},
              per_env={"dev": Overrides(  # <- files
                  config={"web-files": {"kubeconfig": KUBECONFIG, "config.json": DOCKER}})})],
)
