"""A Git server over smart HTTPS on loopback: Git's own ``git http-backend`` behind a small CGI
bridge (go-git, which source-controller and Argo CD use, speaks no dumb HTTP), with a
certificate of the test's authority (the controllers trust it through ``SSL_CERT_FILE``)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

from tests.e2e.pki import Authority
from tests.e2e.processes import LOOPBACK
from tests.e2e.serving import serving


def _handler(root: Path) -> type[BaseHTTPRequestHandler]:
    class Backend(BaseHTTPRequestHandler):
        """Runs ``git http-backend`` as CGI for each request on repositories under ``root``."""

        def _cgi(self) -> None:
            url = urlsplit(self.path)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            env = {
                "GIT_PROJECT_ROOT": str(root),
                "GIT_HTTP_EXPORT_ALL": "1",
                "REQUEST_METHOD": self.command,
                "PATH_INFO": url.path,
                "QUERY_STRING": url.query,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)),
                "REMOTE_ADDR": self.client_address[0],
                "HTTP_GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                "PATH": "/usr/bin:/bin",
            }
            ran = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True)
            head, _, payload = ran.stdout.partition(b"\r\n\r\n")
            headers = [line.split(b":", 1) for line in head.split(b"\r\n") if b":" in line]
            status = next((v.strip() for k, v in headers if k.lower() == b"status"), b"200 OK")
            self.send_response(int(status.split()[0]))
            for key, value in headers:
                if key.lower() != b"status":
                    self.send_header(key.decode(), value.strip().decode())
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = _cgi

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the controllers poll."""

    return Backend


@contextmanager
def git_server(root: Path, authority: Authority) -> Iterator[str]:
    """Serve the repositories under ``root``; yields the base URL (``https://127.0.0.1:PORT``)."""
    with serving(_handler(root), authority, "git") as port:
        yield f"https://{LOOPBACK}:{port}"
