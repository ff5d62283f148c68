"""Shared fixtures: a known environment for every test, kustomize, the hypothesis budget."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from fleetgen.tools.kustomize import Kustomize, KustomizeNotFound, find_kustomize
from tests.helpers import DEEP

# Hypothesis budget: the "ci" profile (default; what `.ci/run` and `scripts/test` run) keeps the
# whole suite within 10 minutes on a 2-core machine; FLEETGEN_DEEP_TESTS=1 loads "deep", many more
# examples per property (never part of CI's run). Properties that set their own count size it
# with `tests.helpers.examples`.
settings.register_profile("ci", max_examples=50, deadline=None)
settings.register_profile(
    "deep", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("deep" if DEEP else "ci")

# The end-to-end tests need the upstream programs scripts/e2e-tools builds; `bash scripts/e2e`
# runs them (FLEETGEN_E2E=1), the suite does not collect them.
collect_ignore = [] if os.environ.get("FLEETGEN_E2E") else ["e2e"]

# The identity of every Git commit a test (or fleetgen under test) makes: not the user's.
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "fleetgen tests",
    "GIT_AUTHOR_EMAIL": "tests@fleetgen.invalid",
    "GIT_COMMITTER_NAME": "fleetgen tests",
    "GIT_COMMITTER_EMAIL": "tests@fleetgen.invalid",
}
# Set for every test: a plain, non-colour, 80x24 session in a UTF-8 C locale.
KNOWN = {
    **GIT_IDENTITY,
    "TERM": "dumb",
    "COLUMNS": "80",
    "LINES": "24",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
}
# Removed for every test: colour switches, pagers and editors, other locale settings.
REMOVED = (
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "PAGER",
    "GIT_PAGER",
    "MANPAGER",
    "EDITOR",
    "VISUAL",
    "LANGUAGE",
    "LC_CTYPE",
    "LC_MESSAGES",
)


def _set_known_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("GIT_") and name not in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"):
            monkeypatch.delenv(name)
    for name in REMOVED:
        monkeypatch.delenv(name, raising=False)
    for name, value in KNOWN.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(autouse=True, scope="session")
def known_session_environment() -> Iterator[None]:
    """The known environment for session fixtures too (they are set up before a test's own)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _set_known_environment(monkeypatch)
        yield


@pytest.fixture(autouse=True)
def known_environment(
    known_session_environment: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Every test starts from the same environment, whatever the developer or CI exported:
    no colour switches (tests about colour set what they need), a dumb 80-column terminal
    type, a fixed locale, and a test Git identity with no other ``GIT_*`` variable (a
    ``GIT_DIR`` from a hook, say). ``GIT_CONFIG_GLOBAL``/``GIT_CONFIG_NOSYSTEM`` stay as given:
    `.ci/run` sets the first to /dev/null to prove no test needs the user's Git config."""
    _set_known_environment(monkeypatch)  # again: whatever an earlier test left
    path = list(sys.path)
    yield
    # The CLI runs in-process (tests.helpers.run_fleetgen): no command may leave the cyclic
    # collector paused (fleetgen.util.collector) or a spec's folder on sys.path for the next test.
    assert gc.isenabled(), "the test left the cyclic garbage collector paused"
    assert sys.path == path, "the test left sys.path changed"


@pytest.fixture(scope="session")
def kustomize() -> Kustomize:
    """A real kustomize >= 5; skipped where missing, except on CI (CI set), where it fails."""
    try:
        return find_kustomize()
    except KustomizeNotFound as exc:
        if os.environ.get("CI"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))
