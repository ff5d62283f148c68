"""fleet.py snippets for a request (``Cluster(...)``, ``App(...)``, ``Environment(...)``,
``Project(...)`` and the calls in them) as `Call` values, which the edit lays out where they go
(`fleetgen.util.templating.formatted`), and the kustomize base ``add app`` scaffolds."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from fleetgen.errors import UsageError
from fleetgen.manifests.yamlio import dump_documents
from fleetgen.model.fields import ROLE_ARN
from fleetgen.scaffold.requests import AppRequest, ClusterRequest, check_engine
from fleetgen.util.templating import Call

_AWS = re.compile(rf"(?P<arn>{ROLE_ARN.pattern})(?::(?P<eks>.+))?")  # --credentials aws:...
_IMAGE = re.compile(r"(?P<name>[^@]+?)(?::(?P<tag>[^:/@]+))?(?:@(?P<digest>.+))?")
BASE_HEADER = "# Scaffolded by fleetgen; yours to edit (fleetgen never rewrites it).\n"


def credentials_call(text: str, cluster: str) -> Call:
    """The credentials constructor for ``--credentials``."""
    kind, _, rest = text.partition(":")
    if kind == "external-secret":
        store, sep, key = rest.partition(":")
        if sep and store and key:
            return Call("ExternalSecretRef", {"store": store, "key": key})
    elif kind == "aws" and (match := _AWS.fullmatch(rest)):
        return Call("AwsAuth", {"cluster_name": match["eks"] or cluster, "role_arn": match["arn"]})
    elif kind == "exec" and rest in ("gcp", "azure"):
        return Call("ExecAuth", {"args": [rest]})
    raise UsageError(
        f"--credentials {text!r}: use external-secret:STORE:KEY, "
        "aws:ROLE_ARN[:EKS_CLUSTER_NAME] or exec:gcp|azure"
    )


def cluster_call(request: ClusterRequest) -> Call:
    """The ``Cluster(...)`` of ``add cluster``."""
    credentials = (
        credentials_call(request.credentials, request.name) if request.credentials else None
    )
    engine = check_engine(request.engine) if request.engine else None
    if request.ca_data and request.ca_file:
        raise UsageError("--ca-data inlines the CA and --ca-file refers to its file: give one")
    ca_file = Call("CaFile", args=(request.ca_file,)) if request.ca_file else None
    return _call(
        "Cluster",
        name=request.name,
        env=request.env,
        server=request.server,
        labels=request.labels,
        vars=request.vars,
        credentials=credentials,
        engine=engine,
        ca_data=ca_file or request.ca_data,
    )


def env_call(name: str, sync: str) -> Call:
    """The ``Environment(...)`` of ``add env``, with its explicit sync policy
    (`EnvRequest.sync`)."""
    policy = (
        Call("SyncPolicy", {"automated": True, "prune": True})
        if sync == "auto"
        else Call("SyncPolicy", {"automated": False})
    )
    return Call("Environment", {"name": name, "sync": policy})


def project_call(name: str, namespaces: list[str], description: str = "") -> Call:
    """The ``Project(...)`` of ``add project``."""
    return _call("Project", name=name, description=description, namespaces=namespaces)


def _call(called: str, /, **kwargs: Any) -> Call:
    """``called(...)`` with the arguments given a value (not None nor empty)."""
    return Call(called, {key: value for key, value in kwargs.items() if value})


def image_call(reference: str, name: str) -> Call:
    """``Image(...)`` pointing the base's image ``name`` at ``reference`` (repo[:tag][@digest])."""
    match = _IMAGE.fullmatch(reference)
    if match is None or not (match["tag"] or match["digest"]):
        raise UsageError(f"--image {reference!r}: write REPOSITORY:TAG or REPOSITORY@sha256:...")
    parts = {
        "name": name,
        "new_name": match["name"] if match["name"] != name else None,
        "tag": match["tag"],
        "digest": match["digest"],
    }
    return Call("Image", {key: value for key, value in parts.items() if value})


def chart_call(reference: str) -> Call:
    """``HelmChart(...)`` for ``--chart REPO/NAME@VERSION`` (REPO https:// or oci://)."""
    rest, _, version = reference.rpartition("@")
    repo, _, name = rest.rpartition("/")
    if not (version and name and repo.startswith(("https://", "oci://"))):
        raise UsageError(
            f"--chart {reference!r}: write REPO/NAME@VERSION, e.g. "
            "https://charts.jetstack.io/cert-manager@v1.16.2 or "
            "oci://registry.example.com/charts/web@1.2.3"
        )
    return Call("HelmChart", {"repo": repo, "name": name, "version": version})


def app_call(request: AppRequest) -> Call:
    """The ``App(...)`` of ``add app``."""
    if request.chart and request.image:
        raise UsageError(
            "--image sets a kustomize base's image; a chart app sets its image "
            "through values in fleet.py"
        )
    if request.chart and request.path:
        raise UsageError("--path names a kustomize base; a chart app (--chart) has none")
    if request.image_name and not request.image:
        raise UsageError("--image-name names the base's image that --image sets; give --image")
    source = {"chart": chart_call(request.chart)} if request.chart else {"path": app_base(request)}
    return _call(
        "App",
        name=request.name,
        project=request.project,
        namespace=request.namespace,
        **source,
        targets=Call("Selector", {"envs": list(request.envs)}) if request.envs else None,
        images=(
            [image_call(request.image, request.image_name or request.name)] if request.image else []
        ),
    )


def base_dir(app: str) -> str:
    """Where ``add app`` puts an app's kustomize base."""
    return f"apps/{app}/base"


def app_base(request: AppRequest) -> str:
    """The base ``add app`` points the app at: ``--path`` (normalized) or `base_dir`."""
    if request.path is None:
        return base_dir(request.name)
    path = PurePosixPath(request.path.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or str(path) == ".":
        raise UsageError(
            f"--path {request.path!r}: give the base's folder relative to the "
            "folder holding fleet.py, inside it"
        )
    return str(path)


def base_files(app: str, port: int = 8080) -> dict[str, str]:
    """A Deployment, a Service and their kustomization, by file name, as YAML text."""
    labels = {"app.kubernetes.io/name": app}
    container = {
        "name": app,
        "image": app,  # the name App(images=[Image(name=...)]) points elsewhere
        "ports": [{"name": "http", "containerPort": port}],
        "resources": {
            "requests": {"cpu": "50m", "memory": "64Mi"},
            "limits": {"cpu": "500m", "memory": "128Mi"},
        },
        "securityContext": {"allowPrivilegeEscalation": False, "runAsNonRoot": True},
        # validate's policy wants both probes; adjust the path to the app's health endpoint
        "readinessProbe": {"httpGet": {"path": "/", "port": "http"}},
        "livenessProbe": {"httpGet": {"path": "/", "port": "http"}},
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": app, "labels": labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": app, "labels": labels},
        "spec": {"selector": labels, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
    }
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": ["deployment.yaml", "service.yaml"],
    }
    docs = {
        "deployment.yaml": deployment,
        "service.yaml": service,
        "kustomization.yaml": kustomization,
    }
    return {name: BASE_HEADER + dump_documents([doc]) for name, doc in docs.items()}
