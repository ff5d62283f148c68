"""``validate``: schema, contract and (with ``render``) policy checks; writes nothing but its cache.

Emitted YAML documents are checked against the strict schemas fleetgen ships (newest and oldest
supported release of each controller, the Kubernetes kinds it emits, the kustomization fields
its overlays use), which the given CRDs and any CRD files found in the repo (the directory of
fleet.py, without the output dir, ``.git`` and ``.venv``) override kind by kind; emitted
built-in kinds fleetgen has no schema of are checked against the Kubernetes schemas; a kind
without any schema is counted as not checked. The contracts between emitted objects
(``contracts``) are checked too. With ``render`` every distinct overlay is kustomize-built once
(``render``, cached) and every rendered object is checked against the strict Kubernetes schemas
of ``k8s_version`` or its CRD, and by the policy rules (``rendered``); so is every chart app's
placement, rendered by Helm's Go SDK from a chart kept in the repo or found in the ``charts``
cache directory (``charts``; the others are counted as not rendered). Findings an app waives are
dropped and counted with the waiver's reason. ``validate`` and ``check`` are in ``run``; locating,
merging and waiving findings in ``findings``.
"""

from fleetgen.validate.report import Report
from fleetgen.validate.run import UsageError, check, validate

__all__ = ["Report", "UsageError", "check", "validate"]
