"""What the Argo CD emitter modules share: Go-template escaping, the early sync wave, ObjectMeta
(the names Argo CD defines are `fleetgen.rules.argocd`'s).

Argo CD (ApplicationSet templates) and External Secrets (``target.template``) render strings as
Go ``text/template``; every literal fleetgen puts there goes through `go_text` or `go_tree`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from fleetgen.emit.common import values_text
from fleetgen.model import ClusterVar
from fleetgen.model.fields import VAR_PREFIX
from fleetgen.resolver.values import replace_vars, vars_in
from fleetgen.rules.argocd import SYNC_WAVE

# AppProjects, which ApplicationSets name, sync before them (root app sync wave). Nothing else
# does: an object of an earlier wave that is not healthy stops the root's sync there.
EARLY_WAVE = {SYNC_WAVE: "-1"}


def go_text(text: str) -> str:
    """A Go template that renders exactly ``text``, also when an action follows it.

    Text without ``{{`` is its own template; otherwise (or when it ends in ``{``, which would
    join a following ``{{``) the whole string becomes one action printing a quoted literal. A
    JSON string literal is a valid Go interpreted string literal.
    """
    if "{{" not in text and not text.endswith("{"):
        return text
    return "{{ " + json.dumps(text, ensure_ascii=False) + " }}"


def go_var(var: ClusterVar, quoted: bool = False) -> str:
    """A Go template rendering the cluster var ``var`` of the cluster a generator selected: the
    value of its registration's annotation ``fleetgen.io/var.<name>`` (a JSON string literal
    when ``quoted``, for YAML text), failing the ApplicationSet's generation when the Secret has
    no such annotation.

    The cluster generator passes a Secret's annotations as ``.metadata.annotations``, a
    ``map[string]string`` present only when the Secret has annotations
    (``ClusterGenerator.getClusterParameters``). ``missingkey=error`` does not reach ``index``,
    which gives "" for a missing key, and sprig's ``hasKey`` takes only
    ``map[string]interface{}``: so the template ranges over the annotations (a nil map ranges
    over nothing) and calls sprig's ``fail`` when none has the key. The annotation's value is
    printed, never parsed as a template again.
    """
    key = json.dumps(VAR_PREFIX + var.name)
    message = json.dumps(
        f"cluster %s: its Argo CD cluster Secret has no annotation {VAR_PREFIX}{var.name}, "
        "a ClusterVar of fleet.py"
    )
    value = "{{ $value | toJson }}" if quoted else "{{ $value }}"
    return (
        '{{ $found := false }}{{ $value := "" }}'
        '{{ range $key, $text := index .metadata "annotations" }}'
        f"{{{{ if eq $key {key} }}}}{{{{ $found = true }}}}{{{{ $value = $text }}}}{{{{ end }}}}"
        "{{ end }}"
        f"{{{{ if not $found }}}}{{{{ fail (printf {message} .name) }}}}{{{{ end }}}}{value}"
    )


def go_values_text(values: Mapping[str, Any]) -> str:
    """A Go template rendering `values_text` of ``values``: its text escaped by `go_text`, each
    `ClusterVar` read by `go_var` (quoted: a JSON string is a YAML double-quoted scalar).

    The values are written with a marker in place of each var (a plain scalar derived from the
    document's digest, which no string of it holds) and the text is cut at the markers."""
    found = vars_in(values)
    if not found:
        return go_text(values_text(values))
    digest = hashlib.sha256(json.dumps(values, default=lambda var: var.name).encode()).hexdigest()
    marker = f"fleetgen-var-{digest[:16]}-"
    numbered = iter(range(len(found)))
    text = values_text(replace_vars(values, lambda _: f"{marker}{next(numbered)}"))
    pieces = re.split(re.escape(marker) + "([0-9]+)", text)
    rendered = [go_text(pieces[0])]
    for number, piece in zip(pieces[1::2], pieces[2::2], strict=True):
        rendered += [go_var(found[int(number)], quoted=True), go_text(piece)]
    return "".join(rendered)


def go_tree(value: Any) -> Any:
    """``value`` with every string, map keys included, escaped by `go_text`, and each
    `ClusterVar` read by `go_var`."""
    if isinstance(value, ClusterVar):
        return go_var(value)
    if isinstance(value, str):
        return go_text(value)
    if isinstance(value, dict):
        return {go_text(key): go_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [go_tree(item) for item in value]
    return value


def metadata(name: str, namespace: str, **fields: Any) -> dict[str, Any]:
    """ObjectMeta with the non-empty ``fields`` (labels, annotations, finalizers)."""
    return {"name": name, "namespace": namespace} | {k: v for k, v in fields.items() if v}
