"""``promote``: the versions an environment runs of some apps (image tags and digests, chart
versions: `fleetgen.emit.versions`) written into another environment's layer of fleet.py
(``per_env[to]``), with the validated, byte-preserving edit of ``add`` (`fleetgen.scaffold.add`);
and the summary of what it did."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from fleetgen.emit import versions
from fleetgen.emit.versions import Kind, Row, Version
from fleetgen.errors import Problem, SpecError, UsageError, at, in_order
from fleetgen.inputs.load import read_spec
from fleetgen.model import App
from fleetgen.pipeline import api
from fleetgen.resolver.plan import Plan
from fleetgen.rules.chartversions import Version as Semver, strict
from fleetgen.scaffold import branch as committing, edit
from fleetgen.scaffold.add import Added, edit_validated
from fleetgen.util.templating import Call, py_literal


@dataclass(frozen=True, slots=True)
class PromoteRequest:
    """``fleetgen promote`` arguments.

    Attributes:
        apps: The apps to promote; empty with ``all_apps``.
        source: The environment whose versions are promoted (``--from``).
        target: The environment whose per_env layer gets them (``--to``).
        all_apps: Every app that runs in both environments.
        cluster: The cluster of ``source`` to read the versions from where its clusters disagree.
        allow_downgrade: Promote a version lower than the one the target runs (both exact
            semver); else such a promotion is refused.
    """

    apps: tuple[str, ...]
    source: str
    target: str
    all_apps: bool = False
    cluster: str | None = None
    allow_downgrade: bool = False


# How a promoted version compares with what the target ran: higher (or equal), lower, or
# unknown where either side is no exact semver version (a digest, a range, a tag like latest).
Order = Literal["up", "down", "unknown"]


@dataclass(frozen=True, slots=True)
class Step:
    """One version a promotion changes in the target environment: an image or a chart of an
    app, from what its clusters ran to the source's version."""

    app: str
    kind: Kind
    name: str
    before: tuple[Version, ...]
    after: Version

    @property
    def order(self) -> Order:
        """``down`` where the new version is lower than one the target ran, both exact semver
        (Masterminds ``Version.Compare``, as the engines order chart versions); ``unknown`` where
        either side is not exact; else ``up``."""
        new, old = _semver(self.after), [_semver(version) for version in self.before]
        if new is not None and any(o is not None and new.compare(o) < 0 for o in old):
            return "down"
        return "unknown" if new is None or None in old else "up"


def _semver(version: Version) -> Semver | None:
    """The exact semver version of a tag or chart version (no digest, no range), else None."""
    if version.digest or version.range or not version.tag:
        return None
    return strict(version.tag)


@dataclass(frozen=True, slots=True)
class Reach:
    """Where an app's promotion lands: the target's clusters in rollout order, each with its
    wave (None: no rollout), and those a deeper layer keeps on another version."""

    app: str
    clusters: tuple[tuple[str, int | None], ...]
    held: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Promoted:
    """What a promotion did (or, dry, would do): ``added`` None when nothing differs."""

    request: PromoteRequest
    steps: tuple[Step, ...]
    current: tuple[str, ...]  # apps whose versions the target runs already
    unversioned: tuple[str, ...]  # apps named that run no image or chart a layer versions
    reach: tuple[Reach, ...]
    added: Added | None
    blast: tuple[str, ...] = ()  # the blast radius, as ``diff`` reports it
    commit: str | None = None  # the --branch commit
    uncommitted: str | None = None  # why the --branch commit failed after the write


Blast = Callable[[str, str], Sequence[str]]  # fleet.py before, after -> the blast radius lines


def promote(
    spec: Path,
    request: PromoteRequest,
    *,
    dry_run: bool = False,
    out: Path | None = None,
    branch: str | None = None,
    blast: Blast = lambda before, after: (),
) -> Promoted:
    """Write the versions ``request.source`` runs of its apps into their
    ``per_env[request.target]`` where the target runs others, validated before anything is
    written, and rebuild the output (not ``dry_run``); ``blast`` says what the edit reaches. With
    ``branch``, commit fleet.py and the output on that new branch, the `summary` its message.
    Raises SpecError with one problem per app that cannot be promoted."""
    spec = spec.resolve()
    compiled = api.compile_spec(spec, out)
    plan = compiled.plan
    apps = _apps(plan, request)
    table = versions.rows(plan, apps)
    source = read_spec(spec)
    edited, steps = _written(spec, source, request.target, _all_steps(plan, request, table))
    if not request.allow_downgrade:
        _refuse_downgrades(plan, request, steps)
    versioned = {row.app for row in table}
    unversioned = tuple(app for app in apps if app not in versioned)
    current = tuple(
        app for app in apps if app in versioned and not any(step.app == app for step in steps)
    )
    if not steps:
        return Promoted(request, (), current, unversioned, (), None)
    paths = [spec, compiled.out_dir.resolve()]
    if branch is not None:
        committing.ready(spec.parent, branch, paths)
    added = edit_validated(
        spec,
        f"per_env[{request.target!r}]",
        lambda _: edited,
        {},
        lambda p: p.env == request.target and any(step.app == p.app for step in steps),
        dry_run,
        out,
    )
    reach = _reach(added.compiled.plan, request.target, steps)
    done = Promoted(
        request, tuple(steps), current, unversioned, reach, added, tuple(blast(source, edited))
    )
    if branch is None:
        return done
    try:
        return replace(done, commit=committing.commit(spec.parent, branch, paths, summary(done)))
    except UsageError as error:  # written already: said, not raised
        return replace(done, uncommitted=str(error))


def _all_steps(plan: Plan, request: PromoteRequest, table: Sequence[Row]) -> list[Step]:
    """`_steps` of every app of ``table``; SpecError with a problem per app that cannot be
    promoted."""
    problems: list[Problem] = []
    steps: list[Step] = []
    for app in dict.fromkeys(row.app for row in table):
        found = _steps(request, [row for row in table if row.app == app])
        if isinstance(found, str):
            problems.append(at(_app(plan, app), found, plan.fleet))
        else:
            steps += found
    if problems:
        raise SpecError(in_order(problems))
    return steps


def _refuse_downgrades(plan: Plan, request: PromoteRequest, steps: Sequence[Step]) -> None:
    """SpecError with a problem per app whose promotion lowers an exact semver version the
    target runs (`Step.order`), at the App."""
    problems = [
        at(
            _app(plan, step.app),
            f"app {step.app!r}: promoting {step.kind} {step.name!r} from {request.source} to "
            f"{request.target} is a downgrade ({_change(step)}); pass --allow-downgrade to "
            "promote it anyway",
            plan.fleet,
        )
        for step in steps
        if step.order == "down"
    ]
    if problems:
        raise SpecError(in_order(problems))


def _change(step: Step) -> str:
    """``1.5.0 → 1.4.0``: what the target ran → what it gets."""
    return f"{', '.join(v.text for v in step.before)} → {step.after.text}"


def _written(spec: Path, source: str, env: str, steps: Sequence[Step]) -> tuple[str, list[Step]]:
    """``source`` with ``steps`` written into ``per_env[env]``, and the steps that changed it (a
    step whose version the layer holds already changes nothing: a deeper layer keeps the
    clusters that differ); SpecError with a problem per step fleetgen cannot write."""
    edited, done, problems = source, [], []
    for step in steps:
        try:
            changed = _edited(edited, env, step)
        except edit.EditError as error:
            problems.append(_located(spec, source, env, step, error))
            continue
        if changed != edited:
            edited = changed
            done.append(step)
    if problems:
        raise SpecError(in_order(problems))
    return edited, done


def _located(spec: Path, source: str, env: str, step: Step, error: edit.EditError) -> Problem:
    """``error`` at its line in ``source`` as the user wrote it: the steps written before moved
    the lines below theirs, and what fails is the app's own layer, which they did not touch."""
    try:
        _edited(source, env, step)
    except edit.EditError as unedited:
        error = unedited
    return Problem(str(error), str(spec), error.line)


def _apps(plan: Plan, request: PromoteRequest) -> list[str]:
    """The apps to promote: those named (each must run in both environments), or with
    ``all_apps`` every app that does and runs an image or chart a layer versions."""
    _check(plan, request)
    placed = {app: {p.env for p in ps} for app, ps in plan.by_app().items()}
    both = {request.source, request.target}
    if request.all_apps:
        versioned = {row.app for row in versions.rows(plan)}
        return sorted(app for app, on in placed.items() if both <= on and app in versioned)
    known = {app.name for app in plan.fleet.apps}
    unknown = [app for app in request.apps if app not in known]
    if unknown:
        raise UsageError(f"no such app: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    absent = [
        f"{app} (runs in: {', '.join(sorted(placed.get(app, ()))) or 'none'})"
        for app in request.apps
        if not both <= placed.get(app, set())
    ]
    if absent:
        raise UsageError(
            f"not placed in both {request.source} and {request.target}: {'; '.join(absent)}"
        )
    return list(dict.fromkeys(request.apps))


def _check(plan: Plan, request: PromoteRequest) -> None:
    """Refuse environments and a ``--cluster`` the fleet does not have, one environment named
    twice, and apps named with ``--all`` or neither."""
    envs = [env.name for env in plan.fleet.environments]
    for option, env in (("--from", request.source), ("--to", request.target)):
        if env not in envs:
            raise UsageError(f"{option} {env!r}: no such environment (known: {', '.join(envs)})")
    if request.source == request.target:
        raise UsageError(f"--from and --to name one environment ({request.source})")
    if request.all_apps == bool(request.apps):
        raise UsageError("name the apps to promote, or give --all (not both)")
    if request.cluster is not None and not any(
        c.name == request.cluster and c.env == request.source for c in plan.fleet.clusters
    ):
        raise UsageError(f"--cluster {request.cluster!r}: no cluster of {request.source}")


def _app(plan: Plan, name: str) -> App:
    return next(app for app in plan.fleet.apps if app.name == name)


def _steps(request: PromoteRequest, rows: Sequence[Row]) -> list[Step] | str:
    """What promoting one app (its ``rows``) changes, or why it cannot be promoted. (A chart
    kept in the repository runs its Chart.yaml's version everywhere: it never differs.)"""
    steps = []
    for row in rows:
        source, target = row.cell(request.source), row.cell(request.target)
        assert source is not None and target is not None  # `_apps` placed it in both
        clusters = source.clusters
        if request.cluster is not None:
            clusters = {c: v for c, v in clusters.items() if c == request.cluster}
        found = set(clusters.values())
        if not found:
            return f"app {row.app!r} does not run on cluster {request.cluster!r}"
        if len(found) > 1:
            return (
                f"app {row.app!r}: {request.source}'s clusters run different versions of "
                f"{row.kind} {row.name!r} ({source.text}); pick the one to promote with "
                "--cluster NAME"
            )
        (version,) = found
        if set(target.versions) == {version}:
            continue
        if version == Version():
            return (
                f"app {row.app!r}: {request.source} runs the version its base writes of image "
                f"{row.name!r}, which fleetgen does not know; pin it there first"
            )
        steps.append(Step(row.app, row.kind, row.name, target.versions, version))
    return steps


def _edited(source: str, env: str, step: Step) -> str:
    """``source`` with ``step`` written into the app's ``per_env[env]``."""
    if step.kind == "chart":
        return edit.set_layer_keyword(
            source, step.app, "per_env", env, "chart_version", py_literal(step.after.tag)
        )
    pins = {"tag": step.after.tag, "digest": step.after.digest}
    call = Call("Image", {"name": step.name, **{k: v for k, v in pins.items() if v}})
    return edit.pin_image(
        source,
        step.app,
        "per_env",
        env,
        step.name,
        {key: py_literal(value) if value else None for key, value in pins.items()},
        py_literal(call),
    )


def _reach(plan: Plan, env: str, steps: Sequence[Step]) -> tuple[Reach, ...]:
    """Where each promoted app now runs the promoted versions in ``env``, in rollout order."""
    found = []
    for app in dict.fromkeys(step.app for step in steps):
        running = {(row.kind, row.name): row.cell(env) for row in versions.rows(plan, [app])}
        held: set[str] = set()
        for step in steps:
            cell = running.get((step.kind, step.name)) if step.app == app else None
            if cell is not None:
                held |= {c for c, version in cell.clusters.items() if version != step.after}
        ordered = next(cell for cell in running.values() if cell is not None).clusters
        waves = {p.cluster: p.wave for p in plan.by_app()[app] if p.env == env}
        reached = tuple((c, waves[c]) for c in ordered if c not in held)
        found.append(Reach(app, reached, tuple(c for c in ordered if c in held)))
    return tuple(found)


_ORDER_NOTES: dict[Order, str] = {
    "up": "",
    "down": " (downgrade)",
    "unknown": " (order unknown: not both exact semver versions)",
}


def summary(promoted: Promoted) -> str:
    """The promotion as text: a title line, then per app each version from → to and the
    clusters it reaches in rollout order, the apps already promoted and the blast radius. The
    ``--branch`` commit's message."""
    request = promoted.request
    names = ", ".join(dict.fromkeys(step.app for step in promoted.steps))
    what = f"Promote {names}" if names else "Nothing to promote"
    lines = [f"{what} from {request.source} to {request.target}", ""]
    for reach in promoted.reach:
        lines.append(f"{reach.app}:")
        lines += [
            f"  {step.kind} {step.name}: {_change(step)}{_ORDER_NOTES[step.order]}"
            for step in promoted.steps
            if step.app == reach.app
        ]
        clusters = ", ".join(
            f"{name} (wave {wave})" if wave else name for name, wave in reach.clusters
        )
        lines.append(f"  reaches, in rollout order: {clusters or 'no cluster'}")
        if reach.held:
            lines.append(
                f"  not reached: {', '.join(reach.held)} (a per_label or per_cluster layer "
                "pins another version there)"
            )
    if promoted.current:
        lines.append(f"already promoted: {', '.join(promoted.current)}")
    if promoted.unversioned:
        lines.append(f"no image or chart versions to promote: {', '.join(promoted.unversioned)}")
    return "\n".join([*lines, *([""] if promoted.blast else []), *promoted.blast]) + "\n"
