"""The secret material in the files a base's kustomizations read and in Helm values files
(`fleetgen.rules.secrets`): in each object, a kustomization's own fields, the values its
generators make and its patches, each at its file and line and never with any of its text.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

import yaml

from fleetgen.inputs.objects import object_name
from fleetgen.inputs.reading import Document, Reader, as_list, node_of
from fleetgen.manifests.yamlio import load_all, load_first, node_line
from fleetgen.rules import secrets as scanrules


@dataclass(frozen=True, slots=True)
class SecretFound:
    """Secret material in a file of a base (`fleetgen.rules.secrets`): the file and 1-based line,
    the rule, the object (``Secret db``, ``secretGenerator db``; empty when unknown) and the
    field in it (``data/password``), and the secret's length: never any of its text."""

    file: str
    line: int
    rule: str
    description: str
    object: str
    field: str
    length: int


@dataclass
class SecretScan:
    """Reads the YAML documents of files (a problem for a file that is not YAML) and records the
    secret material in them."""

    problems: list[str] = field(default_factory=list)
    secrets: list[SecretFound] = field(default_factory=list)

    def documents(self, path: str, data: bytes) -> list[Any]:
        """Every document of the file, empty ones as None (their indexes are the nodes')."""
        try:
            return load_all(data)
        except yaml.YAMLError as error:
            self.problems.append(f"{path} is not valid YAML: {error}".replace("\n", " "))
            return []

    def scan_documents(self, path: str, data: bytes, documents: list[Any]) -> None:
        """What the secret rules find in each object of the file at ``path``."""
        for index, doc in enumerate(documents):
            found = scanrules.in_object(doc, parse=load_first)
            if found:
                self._report(path, data, index, found, object_name(doc))

    def _report(
        self,
        path: str,
        data: bytes,
        index: int,
        found: list[scanrules.Found],
        name: str,
        prefix: scanrules.Path = (),
    ) -> None:
        """Record ``found`` (paths inside document ``index`` of ``data``, under ``prefix``) at
        the lines they are on."""
        node = node_of(data, index) if found else None
        for item in found:
            where = (*prefix, *item.path)
            self._secret(path, node_line(node, where) or 1, item.finding, name, where)

    def _secret(
        self, path: str, line: int, finding: scanrules.Finding, name: str, where: scanrules.Path
    ) -> None:
        rule = finding.rule
        field = scanrules.field_path(where)
        self.secrets.append(
            SecretFound(path, line, rule.id, rule.description, name, field, len(finding.secret))
        )

    def scan_kustomization(
        self, read: Reader, directory: str, file: Document, doc: dict[str, Any]
    ) -> None:
        """The secret rules over a kustomization (``file``: its path, bytes and the index of its
        document): its own fields, the values its generators make (``literals``, ``envs`` and
        ``files``; a secretGenerator's as a Secret's data) and its patches (files and inline)."""
        plain = {key: value for key, value in doc.items() if key not in _READ_SEPARATELY}
        self._report(*file, scanrules.in_object(plain, parse=load_first), "")
        for kind in ("secretGenerator", "configMapGenerator"):
            for index, generator in enumerate(as_list(doc.get(kind))):
                if isinstance(generator, dict):
                    self._scan_generator(read, directory, file, (kind, index), generator)
        for key in ("patches", "patchesStrategicMerge", "patchesJson6902"):
            for index, entry in enumerate(as_list(doc.get(key))):
                patch = entry.get("patch") if isinstance(entry, dict) else entry
                path = entry.get("path") if isinstance(entry, dict) else None
                if isinstance(patch, str) and "\n" not in patch.strip():  # a file's path
                    patch, path = None, patch
                if isinstance(patch, str):
                    where: scanrules.Path = (key, index, "patch") if path is None else (key, index)
                    self._scan_inline(file, where, patch)
                elif isinstance(path, str):
                    self._scan_file(read, directory, path)

    def _scan_inline(self, file: Document, where: scanrules.Path, text: str) -> None:
        """An inline patch: its objects, at the line of the text in the kustomization."""
        try:
            documents = load_all(text)
        except yaml.YAMLError:
            documents = [text]  # tested as the text it is
        for doc in documents:
            self._report(*file, scanrules.in_object(doc, parse=load_first), object_name(doc), where)

    def _scan_file(self, read: Reader, directory: str, name: str) -> None:
        """A patch file the kustomization in ``directory`` reads."""
        path = posixpath.normpath(posixpath.join(directory, name))
        data = None if path.startswith("..") or "://" in name else read(path)
        if data is not None:
            self.scan_documents(path, data, self.documents(path, data))

    def _scan_generator(
        self,
        read: Reader,
        directory: str,
        file: Document,
        where: scanrules.Path,
        generator: dict[str, Any],
    ) -> None:
        """A generator's values: what they hold under their keys; every value a
        secretGenerator gives, as a Secret's data (`scanrules.PLAIN_SECRET` when no format
        matches)."""
        secret = where[0] == "secretGenerator"
        made = str(generator.get("name", ""))
        name = f"{where[0]} {made}".rstrip()
        for index, literal in enumerate(as_list(generator.get("literals"))):
            key, _, value = str(literal).partition("=")
            line = node_line(node_of(file[1], file[2]), (*where, "literals", index)) or 1
            for item in _generated(made, key, value, secret):
                self._secret(file[0], line, item.finding, name, item.path)
        envs = [*as_list(generator.get("envs")), generator.get("env")]
        for env_file in (entry for entry in envs if isinstance(entry, str)):
            env = self._read_value_file(read, directory, env_file)
            if env is None:
                continue
            for number, text in enumerate(env[1].splitlines(), 1):
                key, separator, value = text.strip().partition("=")
                if not separator or key.startswith("#"):
                    continue
                for item in _generated(made, key.strip(), value.strip(), secret):
                    self._secret(env[0], number, item.finding, name, item.path)
        for entry in (entry for entry in as_list(generator.get("files")) if isinstance(entry, str)):
            key, _, source = entry.rpartition("=")
            content = self._read_value_file(read, directory, source)
            if content is None:
                continue
            for item in _generated(made, key or posixpath.basename(source), content[1], secret):
                self._secret(content[0], 1, item.finding, name, item.path)

    def _read_value_file(self, read: Reader, directory: str, name: str) -> tuple[str, str] | None:
        """(repo-relative path, text) of a file a generator reads, None when it cannot be read
        (kustomize then fails the build)."""
        path = posixpath.normpath(posixpath.join(directory, name))
        data = None if path.startswith("..") or "://" in name else read(path)
        return None if data is None else (path, data.decode("utf-8", errors="replace"))


# Kustomization fields whose values `SecretScan.scan_kustomization` reads itself.
_READ_SEPARATELY = frozenset(
    {"secretGenerator", "configMapGenerator", "patches", "patchesStrategicMerge", "patchesJson6902"}
)


def _generated(made: str, key: str, value: str, secret: bool) -> list[scanrules.Found]:
    """What the secret rules find in a generator's ``value`` under ``key`` (paths from the
    key), the generator making ``made``: for a secretGenerator, any value that holds something
    (`scanrules.PLAIN_SECRET` if no format); Argo CD's repository settings in argocd-cm by their
    fields (`scanrules.repository_settings`)."""
    if secret:
        found = scanrules.in_secret(key, value) if scanrules.holds_material(value) else None
    else:
        settings = scanrules.repository_settings(made, key, value, load_first)
        if settings is not None:
            return [scanrules.Found(item.finding, (key, *item.path)) for item in settings]
        found = scanrules.find(key, value)
    return [] if found is None else [scanrules.Found(found, (key,))]
