"""The harness's programs never outlive the test process: a run killed before its fixtures stop
them (SIGKILL, a CI timeout) must not leave API servers and controllers running on the machine
(`Processes.start` runs each under ``setpriv --pdeathsig KILL``). Fast: no upstream program."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from tests.e2e.processes import Processes
    running = Processes(Path(sys.argv[1]))
    running.start("sleeper", ["sleep", "600"])
    print(running.running["sleeper"].pid, flush=True)
    time.sleep(600)
    """
)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, killed and not yet reaped, counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in status


def test_a_killed_test_process_takes_its_programs_with_it(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path / "logs")],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    assert holder.stdout is not None
    pid = int(holder.stdout.readline())
    assert _alive(pid)
    holder.kill()  # as a CI timeout or a kill -9 ends pytest: no fixture teardown runs
    holder.wait()
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid), f"sleep {pid} outlived the killed test process"
