"""The Flux sources import reads, field by field: what each becomes, and a finding for the rest.

A chart's source (its HelmRepository, or the OCIRepository a release's ``chartRef`` names) gives
``HelmChart(interval=..., verify=ChartVerify(...))``: fleetgen's source of the chart is checked
every ``interval`` and verifies the chart's signature as source-controller does with the
OCIRepository's ``spec.verify`` (a HelmRepository of ``type: oci`` verifies through the release's
``chart.spec.verify``, which fleetgen writes on its OCIRepository). An app's own source
(``GitSource``, ``OciSource``) has neither in the spec: fleetgen's GitRepository or OCIRepository
of it is checked every `SOURCE_INTERVAL` and verifies nothing (findings when the original did
otherwise)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from fleetgen.emit.flux.charts import HELM_LAYER
from fleetgen.emit.flux.sources import SOURCE_INTERVAL
from fleetgen.importer.findings import Finding, unmapped
from fleetgen.importer.repo import Doc, at, mapping, mappings
from fleetgen.model import ChartVerify, FluxOptions
from fleetgen.resolver.timing import seconds
from fleetgen.util.templating import Call

_DEFAULT_INTERVAL = FluxOptions.model_fields["interval"].default  # a chart source's default
# What import reads of each source kind, as a chart's source and as an app's.
_CHART_MAPPED: dict[str, dict[str, tuple[str, ...]]] = {
    "HelmRepository": {"url": (), "type": (), "interval": ()},
    "OCIRepository": {"url": (), "ref": ("tag", "semver"), "interval": (), "verify": ()},
}
_APP_MAPPED: dict[str, dict[str, tuple[str, ...]]] = {
    "GitRepository": {"url": (), "ref": (), "secretRef": ()},
    "OCIRepository": {"url": (), "ref": ()},
}
_APP_TODO = {
    "interval": f"fleetgen checks an app's source every {SOURCE_INTERVAL} (GitSource and "
    "OciSource have no interval)",
    "verify": "fleetgen verifies no signature of an app's source (GitSource and OciSource have "
    "no verify): keep the check in a policy, or verify where the artifact is pushed",
}
_CHART_TODO = {
    "interval": "fleetgen checks a chart's source and the chart at one interval, "
    "HelmChart(interval=...): the source's is kept",
}


def chart_fields(release: Doc, source: Doc | None) -> tuple[list[tuple[str, Any]], list[Finding]]:
    """``HelmChart`` fields of a release's chart source (None: a chart kept in this
    repository): ``interval`` and ``verify``; and a finding for each other field of the source
    and of the release's ``chart.spec`` that fleetgen does not write alike."""
    template = mapping(at(release.spec, "chart", "spec"))
    if source is None:
        return [], _template_findings(release, template, None)
    found = unmapped(source, _CHART_MAPPED[source.kind], {}, _set_fields(source))
    fields: list[tuple[str, Any]] = []
    interval = str(source.spec.get("interval") or _DEFAULT_INTERVAL)
    if seconds(interval) != seconds(_DEFAULT_INTERVAL):
        fields.append(("interval", interval))
    found += _template_findings(release, template, interval)
    oci = source.kind == "OCIRepository"
    verify = source.spec.get("verify") if oci else template.get("verify")
    if verify is None:
        return fields, found
    made = _verify(mapping(verify))
    if isinstance(made, Call) and (oci or source.spec.get("type") == "oci"):
        fields.append(("verify", made))
        return fields, found
    where, path = (source, ("spec", "verify")) if oci else (release, ("spec", "chart", "spec"))
    why = made if isinstance(made, str) else "Flux verifies OCI charts only"
    found.append(
        where.finding(
            f"{where.kind} {where.name!r}: verify not mapped ({why})",
            "set HelmChart(verify=ChartVerify(...)) by hand",
            (*path, "verify") if where is release else path,
        )
    )
    return fields, found


def app_source_findings(source: Doc) -> list[Finding]:
    """A finding for each field of an app's GitRepository or OCIRepository that fleetgen's
    source of it does not do alike: its interval, a signature check, any other field."""
    spec = _set_fields(source)
    if seconds(str(spec.get("interval") or SOURCE_INTERVAL)) == seconds(SOURCE_INTERVAL):
        spec.pop("interval", None)
    return unmapped(source, _APP_MAPPED[source.kind], _APP_TODO, spec)


def _set_fields(source: Doc) -> dict[str, Any]:
    """A source's spec without what fleetgen's source of it has alike: Flux's default
    ``provider`` and the Helm chart layer of an OCIRepository (copied, as fleetgen's is)."""
    spec = dict(source.spec)
    if spec.get("provider") == "generic":
        del spec["provider"]
    if spec.get("layerSelector") == {"mediaType": HELM_LAYER, "operation": "copy"}:
        del spec["layerSelector"]
    return spec


def _template_findings(
    release: Doc, template: Mapping[str, Any], interval: str | None
) -> list[Finding]:
    """Findings for the fields of a release's ``chart.spec`` fleetgen does not write alike:
    all but its chart, version, source and ``verify`` (read with the source), an ``interval``
    other than the source's ``interval``, a ``reconcileStrategy`` other than fleetgen's
    ``ChartVersion``."""
    mapped: dict[str, tuple[str, ...]] = {"chart": (), "version": (), "sourceRef": ()}
    mapped["verify"] = ()
    spec = dict(template)
    if interval and seconds(str(spec.get("interval") or interval)) == seconds(interval):
        spec.pop("interval", None)
    if spec.get("reconcileStrategy", "ChartVersion") == "ChartVersion":
        spec.pop("reconcileStrategy", None)
    return unmapped(release, mapped, _CHART_TODO, spec, ("spec", "chart", "spec"), "chart.spec")


def _verify(verify: Mapping[str, Any]) -> Call | str:
    """``ChartVerify(...)`` of a source's ``verify``, or why it cannot be one."""
    fields: dict[str, Any] = {}
    if verify.get("provider", "cosign") != "cosign":
        fields["provider"] = str(verify["provider"])
    secret = mapping(verify.get("secretRef")).get("name")
    if secret:
        fields["secret_ref"] = str(secret)
    identities = [
        {"issuer": str(item.get("issuer", "")), "subject": str(item.get("subject", ""))}
        for item in mappings(verify.get("matchOIDCIdentity"))
    ]
    if identities:
        fields["match_oidc_identity"] = identities
    try:
        ChartVerify(**fields)
    except ValidationError as error:
        return "; ".join(str(e["msg"]) for e in error.errors())
    if identities:
        fields["match_oidc_identity"] = [Call("OIDCIdentity", item) for item in identities]
    return Call("ChartVerify", fields)
