"""The faithfulness check of import (`fleetgen.importer.faithful.check`): every app import maps is
compared with what the repository deploys — kustomize folders built on both sides, charts by
chart, version and values, folders read as they are (plain folders, other sources) by source,
folder and namespace — and each difference is a finding.

Each case imports a golden repository, changes one thing in the fleet.py it imported, and runs
the check on that: the change must come back as a finding at the object it was imported from.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from fleetgen.importer import faithful
from fleetgen.importer.apps import Folded
from fleetgen.importer.findings import in_order
from fleetgen.importer.material import scrub
from fleetgen.importer.repo import read_repo
from fleetgen.importer.run import ImportRequest, _fleet, _recognised
from fleetgen.importer.write import fleet_text

CASES = Path(__file__).parent / "imports"


@dataclass(frozen=True)
class Imported:
    """A golden repository's copy, the fleet.py import made of it, its apps and engine."""

    root: Path
    text: str
    apps: list[Folded]
    engine: str

    def check(self, old: str = "", new: str = "") -> list[str]:
        """The check's findings on the fleet with ``old`` replaced by ``new`` (once, present;
        by default the fleet as imported)."""
        assert not old or self.text.count(old) == 1, old
        changed = self.text.replace(old, new) if old else self.text
        engine = "flux" if self.engine == "flux" else "argocd"
        return [f.render() for f in faithful.check(self.root, changed, self.apps, engine)]


def _imported(case: str, tmp_path: Path) -> Imported:
    root = tmp_path / case
    shutil.copytree(CASES / case / "repo", root)
    repo = read_repo(root)
    draft = _recognised(ImportRequest(root), repo)
    assert draft is not None
    draft.in_order()
    findings = [*repo.findings, *scrub(draft)]
    fields, apps = _fleet(root, draft, findings)
    text = fleet_text(fields, "a repository", in_order([*findings, *draft.findings]))
    return Imported(root, text, apps, draft.engine)


@pytest.mark.parametrize(
    ("case", "old", "new", "expected"),
    [
        # a plain folder (Argo CD directory source): another namespace
        (
            "argocd-appsets",
            'App(name="guestbook", project="platform", namespace="guestbook"',
            'App(name="guestbook", project="platform", namespace="hello"',
            "guestbook on 'in-cluster': the namespace differ",
        ),
        # a folder of another source: another tag of the OCI artifact
        (
            "flux-tenants",
            'tag="v1.4.0"',
            'tag="v1.4.1"',
            "baseline-policies on 'production': the source differ",
        ),
        # a chart: another version
        (
            "argocd-appsets",
            'name="kube-state-metrics", version="5.27.0"',
            'name="kube-state-metrics", version="5.27.1"',
            "metrics on 'prod-eu': another chart or version",
        ),
        # a chart: other values in one layer
        (
            "argocd-appsets",
            '"region=eu": Overrides(values={"replicas": "3"})',
            '"region=eu": Overrides(values={"replicas": "4"})',
            "metrics on 'prod-eu': the values differ at replicas",
        ),
        # an app no longer placed where the repository deploys it
        (
            "argocd-appsets",
            'targets=Selector(envs=["in-cluster"]),\n            cascade_delete=True),\n    ],',
            'targets=Selector(envs=["prod"]),\n            cascade_delete=True),\n    ],',
            "guestbook is not placed on 'in-cluster' by the import",
        ),
        # … and placed where the repository does not deploy it
        (
            "argocd-appsets",
            'targets=Selector(envs=["in-cluster"]),\n            cascade_delete=True),\n    ],',
            'targets=Selector(envs=["in-cluster", "prod"]),\n'
            "            cascade_delete=True),\n    ],",
            "guestbook is also placed on 'prod-eu' by the import",
        ),
    ],
    ids=[
        "plain-namespace",
        "remote-source",
        "chart-version",
        "chart-values",
        "not-placed",
        "also-placed",
    ],
)
def test_each_difference_is_a_finding(
    case: str, old: str, new: str, expected: str, tmp_path: Path
) -> None:
    imported = _imported(case, tmp_path)
    assert imported.check() == []
    found = imported.check(old, new)
    assert any(expected in line for line in found), found


def test_a_kustomize_folder_that_builds_other_objects_is_a_finding(tmp_path: Path) -> None:
    """Both sides are built by kustomize: the original folder as its engine builds it, the
    import's overlay as fleetgen writes it; each object that differs is named, at its field."""
    imported = _imported("flux-clusters", tmp_path)
    assert imported.check() == []
    found = imported.check('"spec": {"replicas": 2}', '"spec": {"replicas": 5}')
    assert any(
        "monitoring on 'production': Deployment monitoring/exporter differs at spec.replicas" in f
        for f in found
    ), found
