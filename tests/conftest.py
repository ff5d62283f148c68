"""Shared fixtures."""

from __future__ import annotations

import os

import pytest

from fleetgen.kustomize import Kustomize, KustomizeNotFound, find_kustomize


@pytest.fixture(scope="session")
def kustomize() -> Kustomize:
    """A real kustomize >= 5; skipped where missing, except on CI (CI set), where it fails."""
    try:
        return find_kustomize()
    except KustomizeNotFound as exc:
        if os.environ.get("CI"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))
