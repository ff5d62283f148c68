"""The workspace inventory of a base: images, what each workload reads, ConfigMap data; and the
image matching that the `Image(name=…)` check relies on, compared with the real kustomize."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fleetgen.inputs.reading import filesystem_reader
from fleetgen.inputs.workspace import scan
from fleetgen.manifests.k8s import image_matches, image_name
from fleetgen.manifests.yamlio import dump, dump_documents, load_all
from fleetgen.tools.kustomize import Kustomize, build_many

DIGEST = "sha256:" + "ab" * 32
# (image in the base, Image name): kustomize decides whether the entry rewrites the image.
PAIRS = [
    ("nginx", "nginx"),
    ("nginx:1.27", "nginx"),
    (f"nginx@{DIGEST}", "nginx"),
    (f"nginx:1.27@{DIGEST}", "nginx"),
    ("docker.io/library/nginx:1.27", "nginx"),
    ("docker.io/library/nginx:1.27", "library/nginx"),
    ("docker.io/library/nginx:1.27", "docker.io/library/nginx"),
    ("nginx-unprivileged:1", "nginx"),
    ("registry:5000/team/api:2", "registry:5000/team/api"),
    ("registry.example.com/api:2", "registry.example.com/api:2"),
    ("registryXexample.com/api:2", "registry.example.com/api"),  # the name is a regexp
]


def test_image_matching_is_kustomizes(tmp_path: Path, kustomize: Kustomize) -> None:
    """``image_matches`` answers as kustomize's images transformer does: ``imagetag.Filter`` and
    ``imagetag.LegacyFilter`` rewrite an image when ``image.IsImageMatched(image, name)``."""
    dirs = []
    for number, (image, name) in enumerate(PAIRS):
        folder = tmp_path / str(number)
        folder.mkdir()
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": image}]},
        }
        (folder / "pod.yaml").write_text(dump(pod))
        (folder / "kustomization.yaml").write_text(
            dump({"resources": ["pod.yaml"], "images": [{"name": name, "newTag": "matched"}]})
        )
        dirs.append(folder)
    rendered = build_many(dirs, kustomize=kustomize)
    for folder, (image, name) in zip(dirs, PAIRS, strict=True):
        (pod,) = load_all(rendered[folder])
        rewritten = pod["spec"]["containers"][0]["image"] != image
        assert image_matches(image, name) == rewritten, (image, name)


def test_a_name_that_is_no_regexp_matches_nothing() -> None:
    """kustomize v5.5 panics on such a name, newer releases match nothing: either way the Image
    is refused as matching no image of the base."""
    assert not image_matches("api", "[")


def test_image_name_drops_tag_and_digest_but_not_a_registry_port() -> None:
    assert image_name(f"nginx:1.27@{DIGEST}") == "nginx"
    assert image_name(f"busybox@{DIGEST}") == "busybox"
    assert image_name("registry:5000/team/api:2") == "registry:5000/team/api"
    assert image_name("registry:5000/team/api") == "registry:5000/team/api"


def _pod(containers: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {"containers": containers, **spec}


OBJECTS: list[dict[str, Any]] = [
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "api"},
        "spec": {
            "template": {
                "spec": _pod(
                    [
                        {
                            "name": "api",
                            "image": "api:1",
                            "envFrom": [
                                {"configMapRef": {"name": "api-env"}},
                                {"secretRef": {"name": "api-secret"}},
                            ],
                        }
                    ],
                    initContainers=[
                        {
                            "name": "init",
                            "image": "init:1",
                            "env": [
                                {
                                    "name": "A",
                                    "valueFrom": {
                                        "configMapKeyRef": {"name": "init-env", "key": "A"}
                                    },
                                },
                                {"name": "B", "value": "b"},
                            ],
                        }
                    ],
                    volumes=[
                        {"name": "v", "configMap": {"name": "api-files"}},
                        {
                            "name": "p",
                            "projected": {
                                "sources": [
                                    {"configMap": {"name": "api-projected"}},
                                    {"secret": {"name": "not-a-configmap"}},
                                ]
                            },
                        },
                    ],
                )
            }
        },
    },
    {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {"template": {"spec": _pod([{"name": "db", "image": "db:1"}])}},
    },
    {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "report"},
        "spec": {
            "jobTemplate": {
                "spec": {
                    "template": {
                        "spec": _pod(
                            [
                                {
                                    "name": "r",
                                    "image": "report:1",
                                    "envFrom": [{"configMapRef": {"name": "api-env"}}],
                                }
                            ],
                            initContainers=[{"name": "ri", "image": "report-init:1"}],
                        )
                    }
                }
            }
        },
    },
    {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "migrate"},
        "spec": {"template": {"spec": _pod([{"name": "m", "image": "migrate:1"}])}},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "debug"},
        "spec": _pod([{"name": "d", "image": "debug:1"}]),
    },
    {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {"containers": [{"image": "not-rewritten-in-a-crd"}]},
    },
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "api-env"},
        "data": {"LEVEL": "info"},
        "binaryData": {"BLOB": "AAE="},
    },
]


def _scanned(tmp_path: Path, kustomization: dict[str, Any]) -> Any:
    base = tmp_path / "base"
    base.mkdir(exist_ok=True)
    (base / "objects.yaml").write_text(dump_documents(OBJECTS))
    (base / "kustomization.yaml").write_text(dump({"resources": ["objects.yaml"], **kustomization}))
    return scan(filesystem_reader(tmp_path), ["base"]).bases["base"]


def test_inventory_collects_images_reads_and_configmap_data(tmp_path: Path) -> None:
    base = _scanned(tmp_path, {})
    assert base.images == {
        "api:1",
        "init:1",
        "db:1",
        "report:1",
        "report-init:1",
        "migrate:1",
        "debug:1",
    }
    assert base.workloads == {
        ("Deployment", "api"): {"api-env", "init-env", "api-files", "api-projected"},
        ("StatefulSet", "db"): frozenset(),
    }
    assert base.configmap_data == {"api-env": {"LEVEL": "info", "BLOB": "AAE="}}


def test_images_rewritten_by_the_base_itself_are_not_known(tmp_path: Path) -> None:
    base = _scanned(tmp_path, {"images": [{"name": "api", "newName": "mirror/api"}]})
    assert base.images is None


def _configmap(name: str, namespace: str | None = None) -> dict[str, Any]:
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}


NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shipped"}}
CLUSTER_ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRole",
    "metadata": {"name": "reader"},
}
# (outer rewrite, inner rewrite, objects of the outer level, objects of the nested kustomization)
NESTINGS = [
    ("outer", "inner", [_configmap("a", "explicit")], [_configmap("b", "explicit2")]),
    (None, "inner", [_configmap("a", "explicit")], [_configmap("b", "explicit2")]),
    (None, None, [_configmap("a", "explicit")], [_configmap("b")]),
    ("outer", None, [NAMESPACE], [_configmap("b", "explicit2")]),
    (None, "inner", [NAMESPACE], [NAMESPACE | {"metadata": {"name": "nested"}}]),
    (None, None, [NAMESPACE], [_configmap("b", "explicit2")]),
    (None, "inner", [_configmap("a", "explicit")], [CLUSTER_ROLE]),  # nothing it namespaces
    ("outer", None, [CLUSTER_ROLE], [CLUSTER_ROLE | {"metadata": {"name": "other"}}]),
]


def test_namespaces_of_a_base_are_kustomizes(tmp_path: Path, kustomize: Kustomize) -> None:
    """A base's namespaces and Namespace objects are those of its kustomize build: the outermost
    namespace rewrite sets every namespace below it and renames the Namespace objects there
    (kustomize's namespace transformer)."""
    dirs = []
    for number, (outer, inner, objects, nested) in enumerate(NESTINGS):
        base = tmp_path / str(number) / "base"
        (base / "nested").mkdir(parents=True)
        (base / "objects.yaml").write_text(dump_documents(objects))
        (base / "nested" / "objects.yaml").write_text(dump_documents(nested))
        (base / "kustomization.yaml").write_text(
            dump(
                {"resources": ["objects.yaml", "nested"], **({"namespace": outer} if outer else {})}
            )
        )
        (base / "nested" / "kustomization.yaml").write_text(
            dump({"resources": ["objects.yaml"], **({"namespace": inner} if inner else {})})
        )
        dirs.append(base)
    rendered = build_many(dirs, kustomize=kustomize)
    for base in dirs:
        built = load_all(rendered[base])
        found = scan(filesystem_reader(base.parent), ["base"]).bases["base"]
        assert found.namespaces == {
            doc["metadata"]["namespace"] for doc in built if "namespace" in doc["metadata"]
        }, base
        assert found.namespace_objects == {
            doc["metadata"]["name"] for doc in built if doc["kind"] == "Namespace"
        }, base


def test_inventory_records_the_cluster_scoped_kinds_a_base_ships(tmp_path: Path) -> None:
    """(group, kind) of each object of a `k8s.CLUSTER_SCOPED` kind, through nested
    kustomizations: what an AppProject must permit (clusterResourceWhitelist) and what a tenant's
    ServiceAccount may not create."""
    base = tmp_path / "apps/rbac/base"
    (base / "extra").mkdir(parents=True)
    (base / "kustomization.yaml").write_text("resources:\n- objects.yaml\n- extra\n")
    (base / "objects.yaml").write_text(
        dump_documents(
            (
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
                {
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "ClusterRole",
                    "metadata": {"name": "reader"},
                },
            )
        )
    )
    (base / "extra/kustomization.yaml").write_text("resources:\n- ns.yaml\n")
    (base / "extra/ns.yaml").write_text(
        dump({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "tools"}})
    )
    found = scan(filesystem_reader(tmp_path), ["apps/rbac/base"]).bases["apps/rbac/base"]
    assert found.cluster_kinds == {("rbac.authorization.k8s.io", "ClusterRole"), ("", "Namespace")}


# -- secret material in a base's files ------------------------------------------------------------

GH = "ghp_" + "AbCdEf0123456789" * 2  # assembled so that no secret scanner trips on this file
LITERAL = "Zq8v" + "T1xW0pLm3Kr9Bn"


def _secrets(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str, str, str, int]]:
    """(file, line, rule, object, field, length) of what the inventory finds in a base of
    ``files`` (path under base/ -> text)."""
    for name, text in files.items():
        path = tmp_path / "base" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    base = scan(filesystem_reader(tmp_path), ["base"]).bases["base"]
    return [(f.file, f.line, f.rule, f.object, f.field, f.length) for f in base.secrets]


def test_a_clean_base_holds_no_secret(tmp_path: Path) -> None:
    base = _scanned(tmp_path, {})
    assert base.secrets == ()


def test_secrets_in_a_bases_objects_are_found_at_their_file_and_line(tmp_path: Path) -> None:
    found = _secrets(
        tmp_path,
        {
            "kustomization.yaml": "resources:\n- deploy.yaml\n- nested\n",
            "deploy.yaml": (
                "apiVersion: apps/v1\n"
                "kind: Deployment\n"
                "metadata: {name: web}\n"
                "spec:\n"
                "  template:\n"
                "    spec:\n"
                "      containers:\n"
                "      - name: web\n"
                "        env:\n"
                "        - name: DB_HOST\n"
                "          value: db\n"
                "        - name: DB_PASSWORD\n"
                f"          value: {LITERAL}\n"
            ),
            "nested/kustomization.yaml": "resources:\n- secret.yaml\n",
            "nested/secret.yaml": (
                "---\n"
                "apiVersion: v1\n"
                "kind: ConfigMap\n"
                "metadata: {name: other}\n"
                "---\n"
                "apiVersion: v1\n"
                "kind: Secret\n"
                "metadata:\n"
                "  name: git\n"
                "stringData:\n"
                "  url: https://github.com/acme/app.git\n"  # a URL without credentials: no secret
                "  user: deploy\n"
                f"  token: {GH}\n"
            ),
        },
    )
    assert found == [
        ("base/deploy.yaml", 13, "credential-key", "Deployment web",
         "spec/template/spec/containers/0/env/1/value", len(LITERAL)),
        ("base/nested/secret.yaml", 12, "plain-secret", "Secret git", "stringData/user", 6),
        ("base/nested/secret.yaml", 13, "github-token", "Secret git", "stringData/token", len(GH)),
    ]  # fmt: skip


def test_secrets_a_kustomization_generates_or_patches_in_are_found(tmp_path: Path) -> None:
    found = _secrets(
        tmp_path,
        {
            "kustomization.yaml": (
                "resources: []\n"
                "secretGenerator:\n"
                "- name: app\n"
                "  literals:\n"
                "  - HOST=db\n"
                "  - EMPTY=\n"
                "  envs: [app.env]\n"
                "  files: [tls.key, api=token.txt]\n"
                "configMapGenerator:\n"
                "- name: config\n"
                "  literals: [LOG_LEVEL=info, SMTP_PASSWORD=changeme]\n"
                "  envs: [config.env]\n"
                "patches:\n"
                "- path: patch.yaml\n"
                "- patch: |\n"
                "    apiVersion: v1\n"
                "    kind: Secret\n"
                "    metadata: {name: inline}\n"
                "    stringData: {a: b}\n"
                "helmCharts:\n"
                "- name: pg\n"
                "  valuesInline:\n"
                "    auth:\n"
                f"      password: {LITERAL}\n"
            ),
            "app.env": "# a comment\nUSER=app\nPASSWORD=${FROM_FLUX}\n",
            "tls.key": "-----BEGIN EC "
            + "PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\n",
            "token.txt": GH,
            "config.env": "LEVEL=debug\nAPI_TOKEN=" + LITERAL + "\n",
            "patch.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: p}\nstringData: {k: v}\n",
        },
    )
    assert found == [
        ("base/app.env", 2, "plain-secret", "secretGenerator app", "USER", 3),
        ("base/config.env", 2, "credential-key", "configMapGenerator config", "API_TOKEN",
         len(LITERAL)),
        ("base/kustomization.yaml", 5, "plain-secret", "secretGenerator app", "HOST", 2),
        ("base/kustomization.yaml", 11, "credential-key", "configMapGenerator config",
         "SMTP_PASSWORD", 8),
        ("base/kustomization.yaml", 15, "plain-secret", "Secret inline",
         "patches/1/patch/stringData/a", 1),
        ("base/kustomization.yaml", 24, "credential-key", "",
         "helmCharts/0/valuesInline/auth/password", len(LITERAL)),
        ("base/patch.yaml", 4, "plain-secret", "Secret p", "stringData/k", 1),
        ("base/tls.key", 1, "pem-private-key", "secretGenerator app", "tls.key", 68),
        ("base/token.txt", 1, "github-token", "secretGenerator app", "api", len(GH)),
    ]  # fmt: skip


def test_the_inventory_keeps_no_secret_text(tmp_path: Path) -> None:
    """What the inventory keeps (in the compile record's inputs, in messages) is where, which
    rule and how long: no field holds any of the value."""
    _secrets(tmp_path, {"kustomization.yaml": "resources: [s.yaml]\n"})
    (tmp_path / "base/s.yaml").write_text(
        f"apiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\nstringData: {{token: {GH}}}\n"
    )
    base = scan(filesystem_reader(tmp_path), ["base"]).bases["base"]
    assert len(base.secrets) == 1
    assert not any(GH[4:12] in str(value) for value in vars_of(base.secrets[0]))


def vars_of(found: Any) -> list[Any]:
    return [getattr(found, name) for name in found.__slots__]
