"""What to tell the user after ``add cluster``: the rollout step the cluster joined and what to do
next for the engines of its placements."""

from __future__ import annotations

from fleetgen import api
from fleetgen.emit.argocd.clusters import ca_command
from fleetgen.emit.common import flux_bootstrap
from fleetgen.model import AwsAuth, Credentials, ExecAuth, ExternalSecretRef


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
                f"Flux: with kubectl pointing at {name}, run\n    {flux_bootstrap(fleet, name)}"
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
