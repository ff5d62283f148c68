"""What an ApplicationSet's git generator reads of this repository, as the controller reads it
(applicationset generators/git.go): the files a ``files`` generator's globs match
(``generateParamsForGitFiles``), each file's parameters (``generateParamsFromGitFile``: its keys
flattened with dots, a list's items by index, values as Go prints them), and the ``path``
parameters of a folder or file in the set's template syntax (fasttemplate's ``path``,
``path[0]``; goTemplate's ``path.path``, ``path.segments``)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from decimal import Decimal
from fnmatch import fnmatchcase
from typing import Any

import yaml

from fleetgen.importer.repo import Repo, mapping, mappings, strings
from fleetgen.manifests.yamlio import load_all

# argocd-cmd-params-cm's switch to doublestar globbing (default off: git ls-files' pathspecs).
_GLOBBING = "applicationsetcontroller.enable.new.git.file.globbing"
_PARAMS_CM = "argocd-cmd-params-cm"
_TRUE = frozenset({"1", "t", "T", "true", "TRUE", "True"})  # Go's strconv.ParseBool


class NotParams(Exception):
    """A file a files generator reads that is no YAML or JSON object, nor a list of objects
    (Argo CD then makes none of the set's Applications): its file, line and why."""

    def __init__(self, file: str, line: int, reason: str) -> None:
        super().__init__(reason)
        self.file, self.line, self.reason = file, line, reason


def matching_files(repo: Repo, entries: list[Mapping[str, Any]]) -> list[str]:
    """The repository's files (repo-relative, in order) the entries' ``path`` globs match but
    for those an ``exclude: true`` entry's glob matches."""
    doublestar = new_globbing(repo)
    root = repo.root
    files = [
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    ]

    def matched(exclude: bool) -> set[str]:
        globs = [str(e.get("path", "")) for e in entries if bool(e.get("exclude")) is exclude]
        return {f for f in files for glob in globs if _match(f, glob, doublestar)}

    return sorted(matched(False) - matched(True))


def new_globbing(repo: Repo) -> bool:
    """Whether the controller globs with doublestar (``**`` any folders, ``*`` within one):
    ``applicationsetcontroller.enable.new.git.file.globbing`` true in argocd-cmd-params-cm, a
    ConfigMap or a configMapGenerator literal here. Else it lists files as ``git ls-files``
    does (``*`` also matches ``/``), its default."""
    values = [
        str(mapping(doc.obj.get("data")).get(_GLOBBING, ""))
        for doc in repo.docs
        if doc.kind == "ConfigMap" and doc.name == _PARAMS_CM
    ]
    for kustomization in repo.kustomizations.values():
        for generator in mappings(kustomization.obj.get("configMapGenerator")):
            if generator.get("name") == _PARAMS_CM:
                literals = (text.partition("=") for text in strings(generator.get("literals")))
                values += [value.strip() for key, _, value in literals if key == _GLOBBING]
    return any(value in _TRUE for value in values)


def _match(file: str, glob: str, doublestar: bool) -> bool:
    """Whether ``glob`` (relative to the repository's root) lists ``file``: as doublestar
    matches, or as a git pathspec (fnmatch without FNM_PATHNAME, or a leading folder)."""
    glob = glob.strip().lstrip("/")
    if doublestar:
        return _segments(file.split("/"), glob.split("/"))
    return fnmatchcase(file, glob) or file.startswith(glob.rstrip("/") + "/")


def _segments(parts: list[str], globs: list[str]) -> bool:
    """doublestar's match of path segments: ``**`` any number of them, else one each."""
    if not globs:
        return not parts
    if globs[0] == "**":
        return any(_segments(parts[skip:], globs[1:]) for skip in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], globs[0]) and _segments(parts[1:], globs[1:])


def file_params(repo: Repo, file: str, prefix: str = "", go: bool = False) -> list[dict[str, str]]:
    """The parameter sets of one file: one per object (a file holds an object or a list of
    them; an empty file is an empty object), its keys flattened, then the ``path`` parameters of
    its folder under ``prefix`` (``pathParamPrefix``) in the set's syntax (``go``). Raises
    `NotParams`."""
    try:
        documents = load_all((repo.root / file).read_bytes())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        mark = getattr(error, "problem_mark", None)
        reason = getattr(error, "problem", None) or type(error).__name__
        raise NotParams(file, mark.line + 1 if mark is not None else 1, str(reason)) from error
    found = documents[0] if documents else None
    objects = [found or {}] if found is None or isinstance(found, Mapping) else found
    if not isinstance(objects, list) or not all(isinstance(o, Mapping) for o in objects):
        raise NotParams(file, 1, "neither an object nor a list of objects")
    where = path_params(posixpath.dirname(file) or ".", file, prefix, go)
    return [{**flat(obj), **where} for obj in objects]


def flat(value: Any, prefix: str = "") -> dict[str, str]:
    """``value``'s leaves as parameters named by their keys joined with dots (jeremywohl/flatten
    ``DotStyle``: a list's items by index, an empty map or list none), each as Go's ``%v``
    prints it."""
    if isinstance(value, Mapping):
        items = [(str(key), item) for key, item in value.items()]
    elif isinstance(value, list):
        items = [(str(index), item) for index, item in enumerate(value)]
    else:
        return {prefix: go_text(value)}
    found: dict[str, str] = {}
    for key, item in items:
        found |= flat(item, f"{prefix}.{key}" if prefix else key)
    return found


def go_text(value: Any) -> str:
    """A JSON value as Go's ``fmt`` ``%v`` prints what sigs.k8s.io/yaml reads of it: numbers
    are float64 (``8080``, ``1e+06``, ``0.5``), null ``<nil>``."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return _go_float(float(value))
    return str(value)


def _go_float(number: float) -> str:
    """strconv.FormatFloat(number, 'g', -1, 64): the shortest digits, an exponent when it is
    below -4 or from 6 up (``1e+06``, ``1.5e-05``), else a plain decimal."""
    exact = Decimal(repr(number)).normalize()
    sign, digits, exponent = exact.as_tuple()
    assert isinstance(exponent, int)  # a float that JSON holds is finite
    power = len(digits) + exponent - 1
    if number == 0 or -4 <= power < 6:
        return format(exact, "f")
    mantissa = str(digits[0]) + ("." + "".join(map(str, digits[1:])) if digits[1:] else "")
    return f"{'-' if sign else ''}{mantissa}e{'-' if power < 0 else '+'}{abs(power):02d}"


def path_params(
    folder: str, file: str | None = None, prefix: str = "", go: bool = False
) -> dict[str, str]:
    """The ``path`` parameters of a folder (a directories generator's) or of a file's folder
    (a files generator's, with ``filename``), named under ``prefix`` (``pathParamPrefix``), as
    a set's syntax has them: fasttemplate's ``path``, ``path[N]``; Go's ``path.path``,
    ``path.segments`` (flat: ``path.segments.N``)."""
    name = f"{prefix}.path" if prefix else "path"
    base = posixpath.basename(folder)
    found = {f"{name}.basename": base, f"{name}.basenameNormalized": sanitized(base)}
    if file is not None:
        found[f"{name}.filename"] = posixpath.basename(file)
        found[f"{name}.filenameNormalized"] = sanitized(posixpath.basename(file))
    parts = folder.split("/")
    if go:
        found[f"{name}.path"] = folder
        found |= {f"{name}.segments.{index}": part for index, part in enumerate(parts)}
    else:
        found[name] = folder
        found |= {f"{name}[{index}]": part for index, part in enumerate(parts) if part}
    return found


def sanitized(name: str) -> str:
    """A name as applicationset utils ``SanitizeName`` makes it a DNS name."""
    return re.sub(r"[^-a-z0-9.]", "-", name.lower())[:253].strip("-.")
