"""`resolve`: scan the spec for secrets, run every check, raise the problems
found or build the Plan."""

from __future__ import annotations

from fleetgen.errors import SpecError, in_order
from fleetgen.inputs import scan
from fleetgen.inputs.landing import Landing
from fleetgen.inputs.workspace import Workspace
from fleetgen.model import Fleet, Spec
from fleetgen.resolver import namespacing, notify
from fleetgen.resolver.apps import _check_app, _check_dependency_cycles, check_tenant_projects
from fleetgen.resolver.build import _build_plan
from fleetgen.resolver.clusters import (
    _ca_bundles,
    _check_clusters,
    _check_credentials,
    _check_names,
    _check_runtime_selectors,
    _engines,
    _place,
    _reached,
    _rollout_waves,
)
from fleetgen.resolver.context import _Context
from fleetgen.resolver.plan import Plan
from fleetgen.resolver.sources import check_release_names
from fleetgen.resolver.vars import check_vars


def resolve(fleet: Fleet, workspace: Workspace, landing: Landing | None = None) -> Plan:
    """The Plan of ``fleet`` for output files that land as ``landing`` says (default: in the
    fleet's output_dir); raises SpecError listing every problem."""
    ctx = _Context(fleet, workspace)
    _scan(ctx, fleet, "fleet")
    return _resolved(ctx, landing or Landing.of(fleet))


def _scan(ctx: _Context, spec: Spec, path: str) -> None:
    """Report what the secret scan refuses in ``spec`` (at ``path`` of the fleet)."""
    for owner, message in scan.problems(spec, path):
        ctx.report(owner, message)
        ctx.scanned.add(id(owner))


def _resolved(ctx: _Context, landing: Landing) -> Plan:
    """The Plan of ``ctx``'s fleet; raises SpecError listing every problem."""
    _check_names(ctx)
    credentials = _check_clusters(ctx)
    ca_bundles = _ca_bundles(ctx)
    waves = _rollout_waves(ctx)
    placed = {app.name: _place(ctx, app) for app in ctx.apps.values()}
    for app in ctx.apps.values():
        _check_app(ctx, app, placed[app.name])
    _check_dependency_cycles(ctx)
    check_tenant_projects(ctx)
    check_release_names(ctx, placed)
    for meta, message in namespacing.metadata_problems(ctx.fleet):
        ctx.report(meta, message)
    engines = _engines(ctx, placed)
    reached = _reached(ctx, engines)
    _check_credentials(ctx, engines, credentials, reached)
    _check_runtime_selectors(ctx, placed, engines)
    check_vars(ctx)
    ctx.problems += notify.problems(ctx.fleet)
    if ctx.problems:
        raise SpecError(in_order(ctx.problems))
    plan = _build_plan(ctx, placed, waves, credentials, reached, ca_bundles, engines, landing)
    if ctx.problems:  # what only the layered settings show: a var a cluster lacks
        raise SpecError(in_order(ctx.problems))
    return plan
