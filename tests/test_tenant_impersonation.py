"""What argocd-cm needs for a tenant's apps to sync as its ServiceAccount, by the Argo CD floor.

Impersonation on (``application.sync.impersonation.enabled``), argo-cd's controller/sync.go
``deriveServiceAccountToImpersonate`` fails every Application whose project has no matching
``destinationServiceAccounts`` ("no matching service account found") — fleetgen's root and the
projects without ``service_account`` — unless ``application.sync.impersonation.enforced`` is
"false", a key Argo CD reads from 3.5.0 on (util/settings ``IsImpersonationEnforced``; 3.3 and
3.4 have no such key). Seen live on Argo CD 3.6.2 (tests/e2e: the tenant walkthrough sets both)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import case_copy, run_fleetgen

CASE = Path(__file__).parent / "cases" / "tenants"
IMPORTS = ("    Environment,\n", "    ArgoOptions,\n    Environment,\n")
FLOOR = (
    'engines=["argocd", "flux"],',
    'engines=["argocd", "flux"], argocd=ArgoOptions(min_version="{}"),',
)


def _built(tmp_path: Path, floor: str | None) -> tuple[str, str]:
    """The tenants case built at an Argo CD floor (None: the default): the team-a AppProject's
    header and the build's stderr."""
    edits = [] if floor is None else [IMPORTS, (FLOOR[0], FLOOR[1].format(floor))]
    repo = case_copy(CASE, tmp_path / "repo", *edits)
    ran = run_fleetgen(repo, "build")
    assert ran.returncode == 0, ran.stderr
    return (repo / "output/argocd/projects/team-a.yaml").read_text(), ran.stderr


def test_below_3_5_a_tenant_project_is_warned_of_at_its_line(tmp_path: Path) -> None:
    header, stderr = _built(tmp_path, None)
    warned = [line for line in stderr.splitlines() if "impersonation" in line]
    assert len(warned) == 1, stderr
    assert warned[0].startswith("fleet.py:30:"), warned  # Project(name="team-a", ...)
    assert "project 'team-a'" in warned[0] and "no matching service account found" in warned[0]
    assert 'ArgoOptions(min_version="3.5")' in warned[0]
    assert "application.sync.impersonation.enforced" not in header
    assert "before Argo CD 3.5 that fails every Application" in header


def test_from_3_5_the_header_says_to_leave_impersonation_unenforced(tmp_path: Path) -> None:
    header, stderr = _built(tmp_path, "3.5")
    assert "impersonation" not in stderr, stderr
    assert '# application.sync.impersonation.enabled: "true" and\n' in header
    assert '# application.sync.impersonation.enforced: "false": enforced (the default)\n' in header
