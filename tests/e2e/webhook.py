"""A webhook receiver on loopback: what a notification channel's address points to in the tests.
It records each JSON body posted, by the path it was posted to, and answers 200; what it got is
kept beside the controllers' logs."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.e2e.processes import LOOPBACK
from tests.e2e.serving import serving


@dataclass
class Receiver:
    """The receiver listening on ``port``; ``posted`` holds (path, body) in arrival order."""

    port: int
    posted: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str) -> str:
        return f"http://{LOOPBACK}:{self.port}/{path}"

    def bodies(self, path: str) -> list[dict[str, Any]]:
        """Every body posted to ``/path`` so far."""
        with self.lock:
            return [body for posted, body in self.posted if posted == f"/{path}"]


@contextmanager
def webhook_receiver(log: Path) -> Iterator[Receiver]:
    """Serve a `Receiver` on a free loopback port for the block's duration; then write what it
    received to ``log`` (JSON lines: path, body)."""
    receiver = Receiver(0)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            with receiver.lock:
                receiver.posted.append((self.path, body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    try:
        with serving(Handler) as receiver.port:
            yield receiver
    finally:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("".join(json.dumps([path, body]) + "\n" for path, body in receiver.posted))
