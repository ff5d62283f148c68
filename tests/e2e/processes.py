"""Programs run for a test: loopback ports, logs kept, every process stopped at the end."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e.loopback import in_process, require

LOOPBACK = "127.0.0.1"


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def wait_for(
    what: str, ready: Callable[[], bool], timeout: float, logs: Sequence[Path] = ()
) -> None:
    """Poll ``ready`` until it holds; after ``timeout`` seconds fail, with the ends of ``logs``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if ready():
                return
        except (OSError, LookupError):  # not there yet (a refused connection, a 404)
            pass
        time.sleep(0.25)
    tails = "".join(f"\n--- {log} ---\n{_tail(log)}" for log in logs)
    raise TimeoutError(f"{what}: not ready after {timeout:.0f} s{tails}")


def _tail(log: Path, lines: int = 40) -> str:
    if not log.is_file():
        return "(no log)"
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


@dataclass
class Processes:
    """The programs a test started, each writing to ``<logs>/<name>.log``."""

    logs: Path
    running: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def start(
        self,
        name: str,
        argv: Sequence[str | Path],
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Path:
        """Start ``argv`` as ``name``; returns its log. Refused when an address it is given (an
        argument, a variable, a kubeconfig) is not on loopback. Started under ``setpriv
        --pdeathsig KILL`` (util-linux): should the test's process die without stopping it (a
        killed run, a timeout), the kernel kills the program too, so nothing keeps running."""
        environment = {**os.environ, **(env or {})}
        require(in_process(name, argv, environment))
        self.logs.mkdir(parents=True, exist_ok=True)
        log = self.logs / f"{name}.log"
        with log.open("ab") as out:
            self.running[name] = subprocess.Popen(
                ["setpriv", "--pdeathsig", "KILL", "--", *(str(arg) for arg in argv)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=environment,
                cwd=cwd,
                start_new_session=True,
            )
        return log

    def check(self) -> None:
        """Fail when a started program has exited."""
        for name, process in self.running.items():
            if process.poll() is not None:
                raise RuntimeError(
                    f"{name} exited with {process.returncode}:\n{_tail(self.logs / f'{name}.log')}"
                )

    def stop(self) -> None:
        """Stop every program (TERM, then KILL after 10 s), latest first."""
        for process in reversed(self.running.values()):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in reversed(self.running.values()):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.running.clear()
