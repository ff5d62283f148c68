"""``fleetgen import``: adopt an existing Flux or Argo CD repository into a first fleet.py.

`run.import_repo` drives it: `repo` reads every YAML object with its file and line (and what a
folder deploys, through kustomize), `flux` and `argocd` recognise the engines' objects into a
`draft` of the fleet (clusters, projects, one instance per app and cluster; `sources` for
sources outside the repository), `apps` folds the instances into apps with targets and
`layers`, `material` keeps secret material out, `write` lays out fleet.py as ``fleetgen add``
does, and `faithful` builds the result in a scratch folder and compares what both deploy. A
repository of Kustomize overlays without engine objects is read by `overlays` (which folder is
which environment's or cluster's) and `overlaydraft` (its fleet). What does not map is a
`findings.Finding`, printed and written at the top of fleet.py. Docs: docs/import.md.
"""

from fleetgen.importer.findings import Finding
from fleetgen.importer.overlays import FoldersOpen
from fleetgen.importer.run import Imported, ImportRequest, import_repo

__all__ = ["Finding", "FoldersOpen", "ImportRequest", "Imported", "import_repo"]
