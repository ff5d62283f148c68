"""The severity a rule of validate has in an environment: ``Policy(rules={id: severity})`` of
the environment, else of the fleet, else the rule's default (`fleetgen.rules.policy.Rule.default`:
some are errors in production only)."""

from __future__ import annotations

from fleetgen.model import Environment, Fleet
from fleetgen.rules.policy import BY_ID, Severity


def severity(fleet: Fleet, env: Environment | None, rule: str) -> Severity:
    """The severity of ``rule`` in ``env``: its Policy, else the fleet's, else the default."""
    for policy in (env.policy if env else None, fleet.policy):
        if policy is not None and rule in policy.rules:
            return policy.rules[rule]
    return BY_ID[rule].default(env.is_production if env else False)
