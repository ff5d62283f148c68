"""Servers the test's own process runs on loopback (the Git server, the Helm repository, the
webhook receiver): one request handler class on a free port, with TLS of the test's authority
where given, for a block's duration."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.e2e.pki import Authority
from tests.e2e.processes import LOOPBACK


@contextmanager
def serving(
    handler: type[BaseHTTPRequestHandler] | Any, authority: Authority | None = None, name: str = ""
) -> Iterator[int]:
    """Serve ``handler`` (a class, or a partial of one) on a free loopback port, yielded; over
    HTTPS with the authority's serving certificate for ``name`` when ``authority`` is given."""
    server = ThreadingHTTPServer((LOOPBACK, 0), handler)
    if authority is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*authority.serving(name))
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
