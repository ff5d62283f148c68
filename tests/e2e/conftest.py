"""Fixtures of the end-to-end tests: the processes a test starts (stopped after it, their logs
kept in its tmp_path), the test's certificate authority, one etcd. A program not built fails
the test that needs it (`tests.e2e.tools.program`), never skips it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.controlplane import start_etcd
from tests.e2e.loopback import guard_sockets
from tests.e2e.pki import Authority
from tests.e2e.processes import Processes


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test process connects to nothing but loopback (issue #41 point 2)."""
    guard_sockets(monkeypatch.setattr)


@pytest.fixture
def processes(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Processes]:
    running = Processes(tmp_path / "logs")
    try:
        yield running
    finally:
        running.stop()
        print(f"logs of the controllers: {running.logs}")


@pytest.fixture
def authority(tmp_path: Path) -> Authority:
    return Authority.create(tmp_path / "pki")


@pytest.fixture
def etcd(processes: Processes, tmp_path: Path) -> str:
    return start_etcd(processes, tmp_path)
