"""The secret formats fleetgen refuses (`RULES`, one `Rule` each, with examples it must and must
not match), how a string, a dict or a whole Kubernetes object is tested against them (`find`,
`in_object`), and what makes a value under a credential-named key a literal secret rather than a
reference: `credentials` (keys and values), `formats` (the formats a pattern cannot say),
`table` (the rules and `find`), `objects` (objects, Argo CD's repository settings in argocd-cm,
and plain data).

Pure functions over plain data: nothing here imports the rest of fleetgen, so the workspace
inventory (base files), ``validate --render`` (rendered objects) and the spec's scan
(`fleetgen.inputs.scan`) all test strings the same way.

The table is data, fleetgen/rules/secrets.toml, kept by hand rather than generated from an
upstream rule file (a secret scanner's): a build has no network access to fetch one, nor anything
pinned to check it against; the rules are tuned to what fleetgen reads (keys and values of specs
and Kubernetes objects, references such as ``${VAR}`` that must pass, needles that keep the scan
cheap), where a scanner's generic rules would flag names and digests; and each rule's positive
and negative examples are its tests, which a generated table would not carry.
"""

from fleetgen.rules.secrets.credentials import (
    credential_key,
    holds_names,
    inner_key,
    is_literal_secret,
    reference_key,
)
from fleetgen.rules.secrets.formats import holds_material
from fleetgen.rules.secrets.objects import (
    Found,
    Parse,
    Path,
    field_path,
    in_object,
    in_secret,
    repository_settings,
    walk,
)
from fleetgen.rules.secrets.table import (
    BY_ID,
    MATCHERS,
    PLAIN_SECRET,
    RULES,
    Finding,
    Matcher,
    Rule,
    find,
    hint,
)

__all__ = [
    "BY_ID",
    "MATCHERS",
    "PLAIN_SECRET",
    "RULES",
    "Finding",
    "Found",
    "Matcher",
    "Parse",
    "Path",
    "Rule",
    "credential_key",
    "field_path",
    "find",
    "hint",
    "holds_material",
    "holds_names",
    "in_object",
    "in_secret",
    "inner_key",
    "is_literal_secret",
    "reference_key",
    "repository_settings",
    "walk",
]
