"""The arguments of ``add cluster|app|env|engine|project`` (one dataclass each) and the checks of
argument text: labels and vars, engine, the CA file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fleetgen.errors import UsageError
from fleetgen.model.fields import ca_bundle

ENGINES = ("argocd", "flux")
SYNCS = ("auto", "manual")  # add env --sync: automated (and pruning), or every sync by hand


@dataclass(frozen=True, slots=True)
class ClusterRequest:
    """``fleetgen add cluster`` arguments.

    Attributes:
        name: The new cluster's name.
        env: Its environment.
        server: Its API server URL.
        labels: Its labels.
        credentials: external-secret:STORE:KEY | aws:ROLE_ARN[:EKS_NAME] | exec:gcp|azure; None: the
            fleet's default_credentials.
        engine: argocd or flux for the apps placed on it; None: its environment's.
        ca_data: Its CA bundle as base64 PEM (`read_ca_data`); None: not given.
        ca_file: The file holding its CA, relative to the folder holding fleet.py, written as
            ``CaFile(...)`` (read at every build); None: not given.
        vars: Its values of the fleet's ClusterVars (``Cluster(vars=...)``).
    """

    name: str
    env: str
    server: str
    labels: dict[str, str] = field(default_factory=dict)
    credentials: str | None = None  # external-secret:STORE:KEY | aws:ROLE_ARN[:EKS] | exec:gcp
    engine: str | None = None  # argocd | flux; None: the cluster's environment or fleet decides
    ca_data: str | None = None  # base64 PEM CA bundle, from `read_ca_data`
    ca_file: str | None = None  # repo-relative file holding it: Cluster(ca_data=CaFile(...))
    vars: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AppRequest:
    """``fleetgen add app`` arguments.

    Attributes:
        name: The new app's name.
        project: Its project.
        namespace: The namespace it deploys into.
        envs: The environments it runs in; empty: all.
        image: REPOSITORY:TAG (or @sha256:...) its base's image points at.
        image_name: The image of the base ``image`` sets (the name `Image(name=...)` matches);
            None: the app's name in a new base, the base's only image in an existing one.
        chart: REPO/NAME@VERSION: a chart app instead of a kustomize base.
        path: Its kustomize base, repo-relative: used as it is when it exists, else scaffolded
            there; None: apps/NAME/base.
        extend_project: Add the namespace to the project's namespaces, and a chart's repository
            to its explicit source_repos, when the project does not allow them.
    """

    name: str
    project: str
    namespace: str
    envs: tuple[str, ...] = ()
    image: str | None = None
    chart: str | None = None  # REPO/NAME@VERSION: a chart app instead of a kustomize base
    path: str | None = None  # an existing base (adopted as is), or where to scaffold one
    extend_project: bool = False
    image_name: str | None = None  # the base's image --image sets; None: found in the base


@dataclass(frozen=True, slots=True)
class EnvRequest:
    """``fleetgen add env`` arguments.

    Attributes:
        name: The new environment's name.
        after: The environment it goes after (order matters to the fleet map and diff); None:
            last.
        sync: auto (``SyncPolicy(automated=True, prune=True)``: every merged change deploys)
            or manual (``SyncPolicy(automated=False)``: Argo CD syncs when asked, Flux suspends
            every object).
    """

    name: str
    after: str | None = None
    sync: str = "auto"


@dataclass(frozen=True, slots=True)
class EngineRequest:
    """``fleetgen add engine`` arguments.

    Attributes:
        engine: argocd or flux: the engine to add to the fleet's engines.
        envs: The environments whose placements it takes over (their ``engine=``); empty: none
            (the fleet lists it, and apps or clusters name it where they want it).
    """

    engine: str
    envs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProjectRequest:
    """``fleetgen add project`` arguments.

    Attributes:
        name: The new project's name.
        namespaces: The namespaces (or globs) its apps may deploy into.
        description: What it is for.
    """

    name: str
    namespaces: tuple[str, ...]
    description: str = ""


def parse_pairs(pairs: Sequence[str], option: str = "--label") -> dict[str, str]:
    """``k=v`` strings given to ``option`` as a dict (the spec validates keys and values)."""
    found = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(
                f"{option} {pair!r}: write {'NAME' if option == '--var' else 'KEY'}=VALUE"
            )
        found[key] = value
    return found


def check_engine(engine: str) -> str:
    """``--engine``: one of ENGINES."""
    if engine not in ENGINES:
        raise UsageError(f"--engine {engine!r}: use {' or '.join(ENGINES)}")
    return engine


def check_sync(sync: str) -> str:
    """``--sync``: one of SYNCS."""
    if sync not in SYNCS:
        raise UsageError(f"--sync {sync!r}: use {' or '.join(SYNCS)}")
    return sync


def read_ca_data(path: Path) -> str:
    """``--ca-data FILE`` as ``Cluster.ca_data``: the file holds the cluster's CA as PEM, or as
    the base64 line that ``aws eks describe-cluster``/``gcloud`` print; only CERTIFICATE blocks."""
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(
            f"--ca-data {path}: cannot read a PEM or base64 text file ({error})"
        ) from None
    try:
        return ca_bundle(text)
    except ValueError as error:
        raise UsageError(f"--ca-data {path}: {error}") from None
