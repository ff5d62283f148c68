"""What to tell the user after ``add cluster`` (the rollout step the cluster joined and what to do
next for the engines of its placements) and after ``add engine``."""

from __future__ import annotations

from fleetgen.emit.common import ca_command
from fleetgen.model import AwsAuth, CaFile, Credentials, ExecAuth, ExternalSecretRef, Fleet
from fleetgen.model.fields import placeholder_note
from fleetgen.pipeline import api
from fleetgen.util.layout import BOOTSTRAP


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
        env = next(c.env for c in fleet.clusters if c.name == name)
        folder = fleet.argocd_instance(env).directory
        steps.append(
            f"Argo CD: {_credentials_step(credentials)} "
            f"(see {fleet.output_dir}/{folder}/clusters/{name}.yaml)"
        )
        if isinstance(credentials, AwsAuth | ExecAuth):
            ca = next(c for c in fleet.clusters if c.name == name).ca_data
            held = f"{ca.path} (CaFile)" if isinstance(ca, CaFile) else "its ca_data"
            steps.append(
                f"Argo CD verifies {name}'s API server against {held}; when the "
                f"cluster's CA changes, update it from\n    {ca_command(credentials)}"
            )
    if "flux" in engines:
        steps += _flux_steps(fleet, [name])
    steps.append(
        f"commit fleet.py and {fleet.output_dir}/ in one pull request; "
        "`fleetgen diff` shows its blast radius"
    )
    return steps


def engine_next_steps(compiled: api.Compiled, engine: str) -> list[str]:
    """What to do after ``add engine``: connect it to the clusters whose placements it now
    reconciles, then the PR (which moves those placements from the other engine)."""
    fleet, plan = compiled.plan.fleet, compiled.plan
    clusters = sorted({p.cluster for p in plan.placements if p.engine == engine})
    steps = []
    if not clusters:
        steps.append(
            f'it reconciles nothing yet: set engine="{engine}" on an Environment, a Cluster or '
            f"an App in fleet.py (or run `fleetgen add engine {engine} --envs ENV`)"
        )
    elif engine == "flux":
        steps += _flux_steps(fleet, clusters)
    else:
        envs = {c.name: c.env for c in fleet.clusters}
        for instance in fleet.argocd_instances:
            reached = [c for c in clusters if envs[c] in instance.envs]
            folder = f"{fleet.output_dir}/{instance.directory}"
            steps += [
                f"Argo CD: apply {folder}/{BOOTSTRAP} once where Argo CD runs; it reaches "
                f"{', '.join(reached)} with the credentials each {folder}/clusters/CLUSTER.yaml "
                "names"
            ] * bool(reached)
    steps.append(
        f"commit fleet.py and {fleet.output_dir}/ in one pull request; `fleetgen diff` shows "
        "the placements that move between engines"
    )
    return steps


def _flux_steps(fleet: Fleet, clusters: list[str]) -> list[str]:
    """How Flux comes to reconcile ``clusters``: `flux bootstrap` on each (on the hub only, in
    hub mode, which reaches the others)."""
    hub = fleet.flux.hub if fleet.flux.mode == "hub" else None
    bootstrapped = [name for name in clusters if hub is None or name == hub]
    spokes = [name for name in clusters if name not in bootstrapped]
    steps = []
    if bootstrapped:
        where = bootstrapped[0] if len(bootstrapped) == 1 else "each of these clusters in turn"
        lead, url = f"Flux: with kubectl pointing at {where}, run", fleet.repo
        if placeholder_note(fleet.repo):  # never a command bootstrapping from the placeholder
            lead = (
                f"Flux: set fleet.py's repo (still the placeholder {fleet.repo}) to the URL "
                f"Flux reads this repository from, then with kubectl pointing at {where}, run"
            )
            url = "<that URL>"
        steps.append(
            lead
            + "".join(
                f"\n    flux bootstrap git --url={url} --branch={fleet.revision} "
                f"--path={fleet.output_dir}/flux/clusters/{name}"
                for name in bootstrapped
            )
        )
    steps += [
        f"Flux (hub {hub}): the hub reaches {name} as described in "
        f"{fleet.output_dir}/flux/clusters/{hub}/spokes/{name}.yaml"
        for name in spokes
    ]
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
