"""Nothing but loopback (issue #41 point 2): every address the harness applies, connects to or
hands a controller is on 127.0.0.0/8. A finding names where the address is: a file and line, a
field of the fleet, a process's flag or variable, an applied object's field.

The harness calls `require` where it connects or starts something (`Kube`, `Processes.start`,
`Kube.apply`, the Helm that publishes charts: `tests.e2e.charts.Publisher`);
`tests/e2e/test_loopback.py` scans every e2e fleet, its spec and its output, and checks that
each of these guards refuses a non-loopback address.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"`<>(){}\[\],]+")
_HOST_PORT = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}$")
# Fields that hold an address, bare (host[:port]) or as a URL, in fleet.py and in objects.
# Text no program dereferences: a CRD schema's documentation (links to kubernetes.io), its
# validation patterns (``oci://.*$``) and the whole schema, whose defaults are for providers no
# test configures (External Secrets' github.url ``https://github.com/``).
PROSE_FIELDS = frozenset({"description", "pattern", "openAPIV3Schema"})
ADDRESS_FIELDS = frozenset(
    {"server", "url", "repo", "repourl", "address", "host", "endpoint", "proxy"}
)
# Lists of addresses: an AppProject's spec.sourceRepos, a Project's source_repos in fleet.py.
ADDRESS_LISTS = frozenset({"sourcerepos", "source_repos"})
# A scheme-less reference with a path, ``host[:port]/path``: Argo CD's repoURL of a Helm chart
# in an OCI registry (``IsHelmOciRepo``), as fleetgen writes it.
_REFERENCE = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::[0-9]{1,5})?/")
# Argo CD's name for the cluster it runs on, never resolved here: run outside it
# (ARGOCD_FAKE_IN_CLUSTER), ``Cluster.rawRestConfig`` reaches it through KUBECONFIG, whose server
# `Processes.start` checks.
IN_CLUSTER = "kubernetes.default.svc"


class NotLoopback(AssertionError):
    """Addresses that are not on loopback, each with its location."""


def loopback(host: str) -> bool:
    """Whether ``host`` is 127.0.0.0/8 (or ::1, localhost)."""
    host = host.strip("[]").rstrip(".;").lower()  # a URL ending a sentence in prose
    if host in ("localhost", IN_CLUSTER):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _hosts(value: str) -> list[str]:
    """The hosts ``value`` addresses: those of its URLs, or of a ``host:port`` (a flag's
    ``--name=host:port`` and comma-separated lists too)."""
    if "://" in value:
        return [urlsplit(url).hostname or url for url in _URL.findall(value)]
    value = value.split("=", 1)[1] if value.startswith("-") and "=" in value else value
    return [part.rsplit(":", 1)[0] for part in value.split(",") if _HOST_PORT.match(part.strip())]


def _address_hosts(value: str) -> list[str]:
    """The hosts an address field's ``value`` names: `_hosts`, or a scheme-less reference's."""
    reference = None if "://" in value else _REFERENCE.match(value.strip())
    return [reference.group(1)] if reference else _hosts(value)


def in_text(text: str, where: str) -> Iterator[str]:
    """Every URL of ``text`` not on loopback, as ``where:LINE: URL``."""
    for number, line in enumerate(text.splitlines(), 1):
        for url in _URL.findall(line):
            host = urlsplit(url).hostname or ""
            if host and not loopback(host):
                yield f"{where}:{number}: {url}"


def in_value(value: Any, where: str) -> Iterator[str]:
    """Every address in a JSON-like ``value`` not on loopback: URLs in any string, and bare
    ``host:port`` or ``host[:port]/path`` in fields named as addresses and in lists of them, as
    ``where.path: value`` (prose fields aside)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in PROSE_FIELDS:
                continue
            path = f"{where}.{key}"
            address = isinstance(item, str) and str(key).lower() in ADDRESS_FIELDS
            if address and not all(loopback(host) for host in _address_hosts(item)):
                yield f"{path}: {item}"
                continue
            if str(key).lower() in ADDRESS_LISTS and isinstance(item, list):
                for index, entry in enumerate(item):  # its URLs: as in any string, below
                    bare = isinstance(entry, str) and "://" not in entry
                    if bare and not all(loopback(host) for host in _address_hosts(entry)):
                        yield f"{path}[{index}]: {entry}"
            yield from in_value(item, path)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from in_value(item, f"{where}[{index}]")
    elif isinstance(value, str):
        for url in _URL.findall(value):
            host = urlsplit(url).hostname or ""
            if host and not loopback(host):
                yield f"{where}: {url}"


def in_tree(folder: Path, root: Path) -> Iterator[str]:
    """Every non-loopback URL in the text files under ``folder`` (Git's own folder and
    fleetgen's cache aside), located relative to ``root``."""
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(root).parts
        if not path.is_file() or ".git" in parts or ".fleetgen" in parts:
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        yield from in_text(text, str(path.relative_to(root)))


def in_process(name: str, argv: Sequence[str | Path], env: Mapping[str, str]) -> Iterator[str]:
    """Every non-loopback address a started program is given: in its arguments (a URL, or a
    whole ``host:port``), its environment, and the kubeconfig files it reads."""
    for index, arg in enumerate(argv):
        text = str(arg)
        if not all(loopback(host) for host in _hosts(text)):
            yield f"{name}: argument {index}: {text}"
        if Path(text).name == "kubeconfig" and Path(text).is_file():
            yield from in_text(Path(text).read_text(), f"{name}: {text}")
    for key, value in env.items():
        if not all(loopback(host) for host in _hosts(value)):
            yield f"{name}: ${key}: {value}"
        if key == "KUBECONFIG" and Path(value).is_file():
            yield from in_text(Path(value).read_text(), f"{name}: ${key} {value}")


def require(findings: Iterator[str] | Sequence[str]) -> None:
    """Fail with every finding, if any."""
    found = list(findings)
    if found:
        raise NotLoopback("not on loopback:\n" + "\n".join(found))


def guard_sockets(patch: Callable[[object, str, object], None]) -> None:
    """Make this process refuse to connect anywhere but loopback (``patch`` is pytest's
    ``monkeypatch.setattr``): the harness's own clients (`Kube`, Git, urllib) fail on the spot
    with the address instead of reaching it."""

    def guarded(connect: Callable[..., Any]) -> Callable[..., Any]:
        def check(self: socket.socket, address: Any) -> Any:
            if self.family in (socket.AF_INET, socket.AF_INET6) and not loopback(str(address[0])):
                raise NotLoopback(f"connection to {address[0]}:{address[1]}")
            return connect(self, address)

        return check

    patch(socket.socket, "connect", guarded(socket.socket.connect))
    patch(socket.socket, "connect_ex", guarded(socket.socket.connect_ex))
