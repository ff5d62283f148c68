"""Scaffolding: ``add cluster|app|env|project`` edit fleet.py (see `fleetgen.scaffold.edit`) and
validate the edited spec — load, resolve, emitter checks — before anything is written.

fleet.py snippets come from Jinja templates (values through ``repr``); app base manifests are data,
serialized by `fleetgen.yamlio`; output/ is rebuilt through `fleetgen.writer`.
"""

from __future__ import annotations

import base64
import binascii
import difflib
import fnmatch
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from fleetgen import api, writer
from fleetgen.emit.argocd.clusters import ca_command
from fleetgen.errors import Problem, SpecError, UsageError
from fleetgen.fields import ROLE_ARN, to_dns_label
from fleetgen.journal import atomic_write
from fleetgen.load import load_source, read_spec, run_spec
from fleetgen.model import (
    App,
    AwsAuth,
    Credentials,
    Environment,
    ExecAuth,
    ExternalSecretRef,
    Project,
)
from fleetgen.plan import Placement
from fleetgen.scaffold import edit, remote
from fleetgen.templating import Call, py_literal, render
from fleetgen.version import VERSION
from fleetgen.workspace import Reader, filesystem_reader
from fleetgen.yamlio import dump_documents

_AWS = re.compile(rf"(?P<arn>{ROLE_ARN.pattern})(?::(?P<eks>.+))?")  # --credentials aws:...
_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----")
_IMAGE = re.compile(r"(?P<name>[^@]+?)(?::(?P<tag>[^:/@]+))?(?:@(?P<digest>.+))?")
ENGINES = ("argocd", "flux")
BASE_HEADER = "# Scaffolded by fleetgen; yours to edit (fleetgen never rewrites it).\n"


@dataclass(frozen=True, slots=True)
class Added:
    """What an ``add`` did (or, dry, would do)."""

    spec_diff: str  # unified diff of fleet.py
    new_files: tuple[str, ...]  # created outside output/, repo-relative
    output_changes: tuple[writer.Finding, ...]  # output files that change
    compiled: api.Compiled
    placements: tuple[Placement, ...]  # of the added cluster or app
    written: bool
    kept: tuple[str, ...] = ()  # existing files used as they are (an adopted base), repo-relative
    extended: str | None = None  # the project whose namespaces the add extended


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
    """

    name: str
    env: str
    server: str
    labels: dict[str, str] = field(default_factory=dict)
    credentials: str | None = None  # external-secret:STORE:KEY | aws:ROLE_ARN[:EKS] | exec:gcp
    engine: str | None = None  # argocd | flux; None: the cluster's environment or fleet decides
    ca_data: str | None = None  # base64 PEM CA bundle, from `read_ca_data`


@dataclass(frozen=True, slots=True)
class AppRequest:
    """``fleetgen add app`` arguments.

    Attributes:
        name: The new app's name.
        project: Its project.
        namespace: The namespace it deploys into.
        envs: The environments it runs in; empty: all.
        image: REPOSITORY:TAG (or @sha256:...) its base's image points at.
        chart: REPO/NAME@VERSION: a chart app instead of a kustomize base.
        path: Its kustomize base, repo-relative: used as it is when it exists, else scaffolded
            there; None: apps/NAME/base.
        extend_project: Add the namespace to the project's namespaces when it does not allow it.
    """

    name: str
    project: str
    namespace: str
    envs: tuple[str, ...] = ()
    image: str | None = None
    chart: str | None = None  # REPO/NAME@VERSION: a chart app instead of a kustomize base
    path: str | None = None  # an existing base (adopted as is), or where to scaffold one
    extend_project: bool = False


@dataclass(frozen=True, slots=True)
class EnvRequest:
    """``fleetgen add env`` arguments.

    Attributes:
        name: The new environment's name.
        after: The environment it goes after (order matters to the fleet map and diff); None:
            last.
    """

    name: str
    after: str | None = None


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


class NamespaceNotAllowed(UsageError):
    """``add app --namespace NS`` into a project that does not allow NS (without
    ``extend_project``); ``question`` asks whether to extend the project."""

    def __init__(self, project: Project, namespace: str) -> None:
        allowed = ", ".join(project.namespaces) or "none"
        super().__init__(
            f"project {project.name!r} does not allow namespace {namespace!r} "
            f"(its namespaces: {allowed}); pass --extend-project to add it"
        )
        self.question = f"Add namespace {namespace!r} to project {project.name!r}'s namespaces?"


def parse_labels(pairs: Sequence[str]) -> dict[str, str]:
    """``k=v`` strings as a dict (the spec validates keys and values)."""
    labels = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--label {pair!r}: write KEY=VALUE")
        labels[key] = value
    return labels


def check_engine(engine: str) -> str:
    """``--engine``: one of ENGINES."""
    if engine not in ENGINES:
        raise UsageError(f"--engine {engine!r}: use {' or '.join(ENGINES)}")
    return engine


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


def read_ca_data(path: Path) -> str:
    """``--ca-data FILE`` as ``Cluster.ca_data``: the file holds the cluster's CA as PEM, or as
    the base64 line that ``aws eks describe-cluster``/``gcloud`` print; only CERTIFICATE blocks."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(
            f"--ca-data {path}: cannot read a PEM or base64 text file ({error})"
        ) from None
    if "-----BEGIN" not in text:
        try:
            text = base64.b64decode("".join(text.split()), validate=True).decode("ascii").strip()
        except (binascii.Error, UnicodeDecodeError):
            text = ""
    blocks = _PEM_BLOCK.findall(text)
    if any("PRIVATE KEY" in block for block in blocks):
        raise UsageError(
            f"--ca-data {path} holds a private key: give the cluster's CA "
            "certificate (public) only, and keep the key out of the repository"
        )
    if not blocks or set(blocks) != {"CERTIFICATE"}:
        raise UsageError(
            f"--ca-data {path}: expected the cluster's CA certificate (PEM "
            "CERTIFICATE blocks, or their base64 as `aws eks describe-cluster` "
            "prints it)"
        )
    return base64.b64encode(text.encode("ascii") + b"\n").decode("ascii")


def cluster_snippet(request: ClusterRequest) -> tuple[str, list[str]]:
    """The ``Cluster(...)`` text and the fleetgen names it uses."""
    credentials = (
        credentials_call(request.credentials, request.name) if request.credentials else None
    )
    engine = check_engine(request.engine) if request.engine else None
    text = render(
        "snippets/cluster.py.j2",
        name=request.name,
        env=request.env,
        server=request.server,
        labels=request.labels,
        credentials=credentials,
        engine=engine,
        ca_data=request.ca_data,
    )
    return text.rstrip("\n"), ["Cluster", *([credentials.name] if credentials else [])]


def image_call(reference: str, name: str) -> Call:
    """``Image(...)`` pointing the base's image ``name`` at ``reference`` (repo[:tag][@digest])."""
    match = _IMAGE.fullmatch(reference)
    if match is None or not (match["tag"] or match["digest"]):
        raise UsageError(f"--image {reference!r}: write REPOSITORY:TAG or REPOSITORY@sha256:...")
    parts = {
        "name": name,
        "new_name": match["name"],
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


def app_snippet(request: AppRequest) -> tuple[str, list[str]]:
    """The ``App(...)`` text and the fleetgen names it uses."""
    if request.chart and request.image:
        raise UsageError(
            "--image sets a kustomize base's image; a chart app sets its image "
            "through values in fleet.py"
        )
    if request.chart and request.path:
        raise UsageError("--path names a kustomize base; a chart app (--chart) has none")
    targets = Call("Selector", {"envs": list(request.envs)}) if request.envs else None
    images = [image_call(request.image, request.name)] if request.image else []
    chart = chart_call(request.chart) if request.chart else None
    text = render(
        "snippets/app.py.j2",
        name=request.name,
        project=request.project,
        namespace=request.namespace,
        path=app_base(request),
        targets=targets,
        images=images,
        chart=chart,
    )
    names = [
        "App",
        *(["Selector"] if targets else []),
        *(["Image"] if images else []),
        *(["HelmChart"] if chart else []),
    ]
    return text.rstrip("\n"), names


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


PLACEHOLDER_REPO = "https://git.example.com/{name}.git"


@dataclass(frozen=True, slots=True)
class Initialized:
    """What ``init`` did, file by file, and what the user must know.

    Attributes:
        files: (repo-relative path, "created" | "appended: N line(s)" | "skipped: WHY").
        repo: The fleet's repo URL as written into fleet.py.
        warnings: Things to fix or know (a placeholder repo, a converted remote).
    """

    files: tuple[tuple[str, str], ...]
    repo: str
    warnings: tuple[str, ...]


def init(
    directory: Path, name: str | None = None, repo: str | None = None, engine: str = "argocd"
) -> Initialized:
    """Create a fleet repo in ``directory`` (a new one, or an existing repository being adopted):
    fleet.py with one engine, environment, cluster and app, the app's base, README, .gitignore,
    pre-commit config and a CI workflow. Never overwrites a file: an existing .gitignore gets the
    lines it lacks, any other existing file is skipped; an existing fleet.py is refused. Without
    ``repo``, the Git remote ``origin`` (as https) or a placeholder with a warning. The spec is
    validated, with the files as they will be, before anything is written."""
    if (directory / "fleet.py").exists():
        raise UsageError(
            f"{directory / 'fleet.py'} already exists: this is a fleet repo "
            "already; add to it with `fleetgen add`"
        )
    name = name or to_dns_label(directory.resolve().name, "fleet")
    warnings: list[str] = []
    placeholder = None
    if repo is None:
        found = remote.origin(directory)
        if found.url is None:
            placeholder = (
                f"repo is a placeholder ({found.note}): set it to the https:// or "
                "ssh:// URL the engines read this repository from"
            )
        warnings.append(placeholder or found.note or "")
        repo = found.url or PLACEHOLDER_REPO.format(name=name)
    files = init_files(name, repo, check_engine(engine), placeholder)
    planned = {path: _merged(directory / path, path, text) for path, text in files.items()}
    spec = directory.resolve() / "fleet.py"
    written = {path: text for path, (text, _) in planned.items() if text is not None}
    loaded = load_source(
        files["fleet.py"],
        str(spec),
        _overlay(filesystem_reader(directory.resolve()), written),
        None,
    )
    api.compile_loaded(spec, loaded)
    for path, (text, action) in planned.items():
        if text is not None:
            target = directory / path
            if action == "created":
                _write_new(target, text)
            else:
                atomic_write(target, text.encode(), target.stat().st_mode)
    return Initialized(
        tuple((path, action) for path, (_, action) in planned.items()),
        repo,
        tuple(warning for warning in warnings if warning),
    )


def _merged(target: Path, path: str, text: str) -> tuple[str | None, str]:
    """(the file's new text, or None to leave it; what init does to it)."""
    if not target.exists():
        return text, "created"
    if path != ".gitignore" or not target.is_file():
        return None, "skipped: it exists"
    current = target.read_text(encoding="utf-8")
    have = {line.strip() for line in current.splitlines()}
    missing = [line for line in text.splitlines() if line.strip() and line.strip() not in have]
    if not missing:
        return None, "skipped: it has fleetgen's lines"
    separator = "" if not current or current.endswith("\n") else "\n"
    return (
        current + separator + "# fleetgen\n" + "".join(f"{line}\n" for line in missing),
        f"appended: {len(missing)} line(s)",
    )


def init_files(
    name: str, repo: str, engine: str = "argocd", placeholder: str | None = None
) -> dict[str, str]:
    """Every file ``init`` creates, by repo-relative path."""
    env, app, project = "dev", "hello", "apps"
    cluster, _ = cluster_snippet(
        ClusterRequest(f"{env}-1", env, f"https://{env}-1.k8s.example.com:6443")
    )
    app_text, _ = app_snippet(
        AppRequest(app, project, app, image="nginxinc/nginx-unprivileged:1.27")
    )
    context = {"name": name, "repo": repo, "output_dir": "output", "version": VERSION}
    files = {
        "fleet.py": render(
            "init/fleet.py.j2",
            env=env,
            project=project,
            namespace=app,
            cluster=cluster,
            app=app_text,
            engine=engine,
            placeholder=placeholder,
            **context,
        ),
        "README.md": render("init/README.md.j2", **context),
        ".gitignore": render("init/gitignore.j2", **context),
        ".pre-commit-config.yaml": render("init/pre-commit-config.yaml.j2", **context),
        ".github/workflows/fleet.yaml": render("init/workflow.yaml.j2", **context),
    }
    files.update((f"{base_dir(app)}/{file}", text) for file, text in base_files(app).items())
    return files


def add_cluster(
    spec: Path, request: ClusterRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``Cluster(...)`` into fleet.py, validate, then write it and rebuild output/."""
    snippet, names = cluster_snippet(request)
    return _add(
        spec,
        "clusters",
        lambda source: edit.insert(source, "clusters", snippet, names),
        {},
        lambda p: p.cluster == request.name,
        dry_run,
        out,
    )


def add_app(
    spec: Path, request: AppRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``App(...)``, with a new base at apps/NAME/base/ (or ``path``), or the existing base
    at ``path`` as it is (none for a chart app); a project that does not allow the namespace is
    extended when ``request.extend_project``, else refused. Validated before anything is
    written."""
    spec = spec.resolve()
    snippet, names = app_snippet(request)
    fleet = run_spec(read_spec(spec), str(spec), spec.parent)
    _unique(fleet.apps, "app", request.name)
    project = next((p for p in fleet.projects if p.name == request.project), None)
    extend = project is not None and not any(
        fnmatch.fnmatchcase(request.namespace, allowed) for allowed in project.namespaces
    )
    if extend and not request.extend_project:
        assert project is not None
        raise NamespaceNotAllowed(project, request.namespace)
    base = app_base(request)
    kept = (base,) if not request.chart and (spec.parent / base).exists() else ()
    files = (
        {}
        if request.chart or kept
        else {f"{base}/{name}": text for name, text in base_files(request.name).items()}
    )

    def change(source: str) -> str:
        if extend:
            source = edit.extend(
                source, "projects", request.project, "namespaces", py_literal(request.namespace)
            )
        return edit.insert(source, "apps", snippet, names)

    added = _add(spec, "apps", change, files, lambda p: p.app == request.name, dry_run, out)
    return replace(added, kept=kept, extended=request.project if extend else None)


def add_env(
    spec: Path, request: EnvRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``Environment(name=...)`` at the end of the environments, or after ``after``."""
    spec = spec.resolve()
    fleet = run_spec(read_spec(spec), str(spec), spec.parent)
    _unique(fleet.environments, "environment", request.name)
    if request.after is not None and request.after not in {e.name for e in fleet.environments}:
        known = ", ".join(e.name for e in fleet.environments) or "none"
        raise UsageError(f"--after {request.after!r}: no such environment (known: {known})")
    snippet = render("snippets/env.py.j2", name=request.name).rstrip("\n")
    return _add(
        spec,
        "environments",
        lambda source: edit.insert(
            source, "environments", snippet, ["Environment"], after=request.after
        ),
        {},
        lambda p: p.env == request.name,
        dry_run,
        out,
    )


def add_project(
    spec: Path, request: ProjectRequest, *, dry_run: bool = False, out: Path | None = None
) -> Added:
    """Insert ``Project(name=..., namespaces=[...])``."""
    spec = spec.resolve()
    if not request.namespaces:
        raise UsageError(
            "add project: give the namespaces its apps may deploy into (--namespace NS, repeatable)"
        )
    fleet = run_spec(read_spec(spec), str(spec), spec.parent)
    _unique(fleet.projects, "project", request.name)
    snippet = render(
        "snippets/project.py.j2",
        name=request.name,
        namespaces=list(request.namespaces),
        description=request.description,
    ).rstrip("\n")
    return _add(
        spec,
        "projects",
        lambda source: edit.insert(source, "projects", snippet, ["Project"]),
        {},
        lambda p: False,
        dry_run,
        out,
    )


def _unique(existing: Sequence[Environment | Project | App], kind: str, name: str) -> None:
    if any(item.name == name for item in existing):
        raise UsageError(f"{kind} {name!r} exists in fleet.py; pick another name")


def _add(
    spec: Path,
    field_name: str,
    change: Callable[[str], str],
    files: Mapping[str, str],
    wanted: Callable[[Placement], bool],
    dry_run: bool,
    out: Path | None,
) -> Added:
    """Edit (``change``), validate, then (unless ``dry_run``) write new files, fleet.py and
    output/."""
    spec = spec.resolve()
    root = spec.parent
    source = read_spec(spec)
    try:
        edited = change(source)
    except edit.EditError as error:
        raise SpecError([Problem(str(error), str(spec), error.line)]) from None
    try:
        loaded = load_source(edited, str(spec), _overlay(filesystem_reader(root), files), root)
        compiled = api.compile_loaded(spec, loaded, out)
    except SpecError as error:
        raise SpecError(_on_disk(error.problems, str(spec), source, edited, field_name)) from None
    changes = writer.check(compiled.out_dir, compiled.rendered, version=VERSION)
    conflicts = [c for c in changes if c.kind == "unowned-conflict"]
    if conflicts:
        raise writer.OwnershipConflict(conflicts)
    diff = "".join(
        difflib.unified_diff(
            source.splitlines(keepends=True),
            edited.splitlines(keepends=True),
            f"a/{spec.name}",
            f"b/{spec.name}",
        )
    )
    if not dry_run:
        for path, text in files.items():
            _write_new(root / path, text)
        atomic_write(spec, edited.encode(), spec.stat().st_mode)
        writer.write(compiled.out_dir, compiled.rendered, VERSION)
    placements = tuple(p for p in compiled.plan.placements if wanted(p))
    return Added(diff, tuple(files), tuple(changes), compiled, placements, not dry_run)


def _on_disk(
    problems: list[Problem], spec: str, source: str, edited: str, field_name: str
) -> list[Problem]:
    """Problems of the edited spec, at the lines of fleet.py as it is on disk: a problem in the
    inserted element points at the line it would go before."""
    to_source: dict[int, int] = {}
    inserted: set[int] = set()
    matcher = difflib.SequenceMatcher(a=source.splitlines(), b=edited.splitlines(), autojunk=False)
    for tag, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        for offset, line in enumerate(range(b_start, b_end)):
            to_source[line + 1] = (
                a_start + min(offset, a_end - a_start - 1) + 1
                if tag != "insert" and a_end > a_start
                else a_start + 1
            )
            if tag != "equal":
                inserted.add(line + 1)
    return [
        Problem(
            f"in the new {field_name} entry: {p.message}" if p.line in inserted else p.message,
            p.file,
            to_source.get(p.line, p.line),
        )
        if p.file == spec
        else p
        for p in problems
    ]


def _overlay(read: Reader, files: Mapping[str, str]) -> Reader:
    """``read`` with ``files`` (not yet written) visible."""

    def overlaid(path: str) -> bytes | None:
        return files[path].encode() if path in files else read(path)

    return overlaid


def _write_new(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as handle:
        handle.write(text)


def rollout_step(compiled: api.Compiled, name: str) -> str | None:
    """Which rollout step of its environment cluster ``name`` joined, as a sentence; None when
    the environment has no rollout."""
    plan = compiled.plan
    cluster = next(c for c in plan.fleet.clusters if c.name == name)
    env = next(e for e in plan.fleet.environments if e.name == cluster.env)
    if env.rollout is None:
        return None
    steps = plan.waves.get(env.name, ())
    number = next(i for i, step in enumerate(steps, 1) if name in step)
    step = env.rollout.steps[number - 1]
    matched = (
        f"match_labels {', '.join(f'{k}={v}' for k, v in sorted(step.match_labels.items()))}"
        if step.match_labels
        else "the catch-all Step()"
    )
    others = [c for c in steps[number - 1] if c != name]
    return (
        f"rollout: {name} is in step {number} of {len(steps)} of environment {env.name} "
        f"({matched}, max_update {step.max_update}), "
        + (f"with {', '.join(others)}" if others else "alone")
    )


def cluster_next_steps(compiled: api.Compiled, name: str) -> list[str]:
    """What to do after adding cluster ``name``, for the engines of its placements: its
    credentials, Flux bootstrap, the PR."""
    fleet, plan = compiled.plan.fleet, compiled.plan
    credentials = plan.credentials.get(name)
    engines = {p.engine for p in plan.placements if p.cluster == name}
    steps = []
    if "argocd" in engines and credentials is not None:
        steps.append(
            f"Argo CD: {_credentials_step(credentials)} "
            f"(see {fleet.output_dir}/argocd/clusters/{name}.yaml)"
        )
        if isinstance(credentials, AwsAuth | ExecAuth):
            steps.append(
                f"Argo CD verifies {name}'s API server against its ca_data; when the "
                f"cluster's CA changes, update it from\n    {ca_command(credentials)}"
            )
    if "flux" in engines:
        if fleet.flux.mode == "hub":
            steps.append(
                f"Flux (hub {fleet.flux.hub}): the hub reaches {name} as described in "
                f"{fleet.output_dir}/flux/clusters/{fleet.flux.hub}/spokes/{name}.yaml"
            )
        else:
            steps.append(
                f"Flux: with kubectl pointing at {name}, run\n"
                f"    flux bootstrap git --url={fleet.repo} --branch={fleet.revision} "
                f"--path={fleet.output_dir}/flux/clusters/{name}"
            )
    steps.append(
        f"commit fleet.py and {fleet.output_dir}/ in one pull request; "
        "`fleetgen diff` shows its blast radius"
    )
    return steps


def _credentials_step(credentials: Credentials) -> str:
    if isinstance(credentials, ExternalSecretRef):
        where = f"property {credentials.property!r} of " if credentials.property else ""
        return (
            f"store the cluster's config JSON in {credentials.store_kind} "
            f"{credentials.store}, {where}key {credentials.key!r}"
        )
    if isinstance(credentials, AwsAuth):
        return (
            f"grant IAM role {credentials.role_arn} access to EKS cluster "
            f"{credentials.cluster_name} (an access entry)"
        )
    return f"grant Argo CD's workload identity access ({' '.join(credentials.args)})"
