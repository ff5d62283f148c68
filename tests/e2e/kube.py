"""A small client of a loopback Kubernetes API server: discovery, server-side apply, list, delete.

Enough for the tests to apply what a user would and read back what the controllers did, with
nothing beyond the standard library (kubectl may not be on the machine).
"""

from __future__ import annotations

import contextlib
import json
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from tests.e2e.loopback import in_value, require

FIELD_MANAGER = "fleetgen-e2e"


class NotFound(LookupError):
    """The API server answered 404."""


@dataclass
class Kube:
    """The API server at ``server`` (https on loopback), as the bearer of ``token``."""

    server: str
    token: str
    ca: Path
    _kinds: dict[tuple[str, str], tuple[str, bool]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        require(in_value({"server": self.server}, "Kube"))

    def request(self, method: str, path: str, body: Any = None, kind: str = "json") -> Any:
        """``method`` on ``path``; the answer's JSON (None when empty)."""
        data = None if body is None else json.dumps(body).encode()
        content = {
            "json": "application/json",
            "apply": "application/apply-patch+yaml",
            "merge": "application/merge-patch+json",
        }[kind]
        request = urllib.request.Request(self.server + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Content-Type", content)
        context = ssl.create_default_context(cafile=str(self.ca))
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as answer:
                text = answer.read()
        except urllib.error.HTTPError as error:
            if error.code == 404:
                raise NotFound(path) from error
            raise RuntimeError(f"{method} {path}: {error.code} {error.read().decode()}") from error
        return json.loads(text) if text else None

    def ready(self) -> bool:
        """Whether /readyz answers ok."""
        request = urllib.request.Request(self.server + "/readyz")
        request.add_header("Authorization", f"Bearer {self.token}")
        context = ssl.create_default_context(cafile=str(self.ca))
        try:
            with urllib.request.urlopen(request, context=context, timeout=5) as answer:
                return bool(answer.read() == b"ok")
        except (urllib.error.URLError, ConnectionError):
            return False

    def _resource(self, api_version: str, kind: str) -> tuple[str, bool]:
        """(plural, namespaced) of ``kind`` in ``api_version``, read from discovery."""
        if (api_version, kind) not in self._kinds:
            base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
            for resource in self.request("GET", base)["resources"]:
                if "/" not in resource["name"]:
                    self._kinds[(api_version, resource["kind"])] = (
                        resource["name"],
                        resource["namespaced"],
                    )
        return self._kinds[(api_version, kind)]

    def namespaced(self, api_version: str, kind: str) -> bool:
        """Whether ``kind`` objects live in namespaces."""
        return self._resource(api_version, kind)[1]

    def path(self, api_version: str, kind: str, namespace: str | None, name: str = "") -> str:
        """The REST path of ``kind`` objects (in ``namespace``), or of the one named ``name``."""
        plural, namespaced = self._resource(api_version, kind)
        base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        where = f"/namespaces/{namespace}" if namespaced and namespace else ""
        return f"{base}{where}/{plural}" + (f"/{name}" if name else "")

    def apply(self, doc: dict[str, Any], namespace: str | None = None) -> Any:
        """Server-side apply ``doc`` (``namespace`` where it names none); refused when it holds
        an address not on loopback."""
        meta = doc["metadata"]
        require(in_value(doc, f"{doc['kind']} {meta['name']}"))
        where = meta.get("namespace", namespace)
        _, namespaced = self._resource(doc["apiVersion"], doc["kind"])
        if namespaced and where and "namespace" not in meta:
            doc = {**doc, "metadata": {**meta, "namespace": where}}
        path = self.path(doc["apiVersion"], doc["kind"], where, meta["name"])
        query = urlencode({"fieldManager": FIELD_MANAGER, "force": "true"})
        return self.request("PATCH", f"{path}?{query}", doc, kind="apply")

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Any:
        """The object, or NotFound."""
        return self.request("GET", self.path(api_version, kind, namespace, name))

    def list(self, api_version: str, kind: str, namespace: str | None = None) -> list[Any]:
        """Every object of ``kind`` (in ``namespace``)."""
        return list(self.request("GET", self.path(api_version, kind, namespace))["items"])

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
        """Delete the object (background propagation); absent is fine."""
        with contextlib.suppress(NotFound):
            self.request(
                "DELETE",
                self.path(api_version, kind, namespace, name),
                {"propagationPolicy": "Background"},
            )
