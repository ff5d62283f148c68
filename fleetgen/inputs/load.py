"""load: run fleet.py, take its ``fleet``, and inventory the app bases, charts and CA files it
refers to.

Anything that goes wrong in the user's file becomes a Problem at the user's file and line,
never a fleetgen traceback.
"""

from __future__ import annotations

import ast
import difflib
import sys
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

import pydantic

from fleetgen import model
from fleetgen.errors import Problem, SpecError
from fleetgen.inputs import scan as secrets
from fleetgen.inputs.reading import Lister, Reader, filesystem_lister, filesystem_reader
from fleetgen.inputs.record import Record, read_record
from fleetgen.inputs.workspace import Workspace, scan
from fleetgen.model.apps import layer_inputs, values_files
from fleetgen.model.fields import inside_repo, repo_path


@dataclass(frozen=True, slots=True)
class Loaded:
    """A loaded spec: the Fleet, the inventory of what it refers to, the record its output
    folder holds, and how to read the repository it is in (the output folder's previous
    documents are read from it when a removal keeps them: `fleetgen.settle.draining`)."""

    fleet: model.Fleet
    workspace: Workspace
    record: Record
    read: Reader


def load(spec: Path) -> Loaded:
    """Run ``spec`` (a fleet.py) and inventory its repo, the directory holding it."""
    source = read_spec(spec)  # before resolving: a problem names the path as given
    spec = spec.resolve()
    root = spec.parent
    return load_source(source, str(spec), filesystem_reader(root), filesystem_lister(root), root)


def read_spec(spec: Path) -> str:
    """The text of ``spec``; a missing, unreadable or non-UTF-8 file is a SpecError."""
    if not spec.exists():
        raise SpecError(
            [
                Problem(
                    "no such spec: start a fleet repo with `fleetgen init`, or pass --spec PATH",
                    str(spec),
                )
            ]
        )
    try:
        data = spec.read_bytes()
    except OSError as error:
        raise SpecError([Problem(f"cannot read the spec: {error.strerror}", str(spec))]) from None
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise SpecError([Problem(f"cannot read the spec: {error}", str(spec), line)]) from None
    return source


def load_source(
    source: str, filename: str, read: Reader, files: Lister, import_dir: Path | None
) -> Loaded:
    """Run ``source`` as ``filename``; ``read`` reads repo files and ``files`` lists them;
    ``import_dir`` joins sys.path."""
    fleet = run_spec(source, filename, import_dir)
    overlaid = [app for app in fleet.apps if app.kustomize]
    charted = [app for app in fleet.apps if app.chart is not None]
    workspace = scan(
        read,
        [
            *(repo_path(app.base_path) for app in fleet.apps if app.base_path),
            # what layers add to the overlays, never read outside the repository
            *(path for app in overlaid for path in layer_inputs(app) if inside_repo(path)),
        ],
        (repo_path(app.chart.path) for app in fleet.apps if app.chart and app.chart.path),
        files,
        (c.ca_data.path for c in fleet.clusters if isinstance(c.ca_data, model.CaFile)),
        # Helm values files, never read outside the repository either
        (path for app in charted for path in values_files(app) if inside_repo(path)),
    )
    return Loaded(fleet, workspace, read_record(read, fleet.output_dir), read)


def run_spec(source: str, filename: str, import_dir: Path | None) -> model.Fleet:
    """Execute the spec and return its ``fleet`` variable."""
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as error:
        raise SpecError(
            [Problem(f"syntax error: {error.msg}", filename, error.lineno or 0)]
        ) from None
    module = types.ModuleType("fleet")
    module.__file__ = filename
    if import_dir is not None:
        sys.path.insert(0, str(import_dir))
    try:
        exec(code, module.__dict__)
    except pydantic.ValidationError as error:
        raise SpecError(_validation_problems(error, filename)) from None
    except (Exception, SystemExit) as error:  # SystemExit too: sys.exit() in a spec is an error
        line = _user_line(error, filename)
        text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        text = secrets.redact(text)  # a secret in an exception message is masked, never printed
        raise SpecError([Problem(text, filename, line)]) from None
    finally:
        if import_dir is not None:
            sys.path.remove(str(import_dir))
    return _take_fleet(module.__dict__, source, filename)


def _user_line(error: BaseException, filename: str) -> int:
    """The line of the deepest traceback frame in the user's file."""
    line, tb = 0, error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _validation_problems(error: pydantic.ValidationError, filename: str) -> list[Problem]:
    line = _user_line(error, filename)
    return [
        Problem(_masked(_describe(error.title, item), item), filename, line)
        for item in error.errors()
    ]


def _masked(text: str, item: Any) -> str:
    """``text`` with secrets masked: validators quote the value they refuse (only ``msg`` is
    shown, pydantic's ``input_value`` never is), and that value may be a secret."""
    key = next((str(part) for part in reversed(item["loc"]) if isinstance(part, str)), "")
    return secrets.redact(text, key, item.get("input"))


def _describe(title: str, item: Any) -> str:
    loc: tuple[Any, ...] = tuple(item["loc"])
    if loc[-1:] == ("[key]",):  # a bad dict key: the message names the key itself
        loc = loc[:-2]
    where = title + "".join(_loc_part(part) for part in loc)
    message = str(item["msg"]).removeprefix("Value error, ")
    if item["type"] == "extra_forbidden":
        return f"{title}: unknown field {'.'.join(map(str, loc))!r}{_suggest(title, loc)}"
    if item["type"] == "missing":
        return f"{title}: missing required field {'.'.join(map(str, loc))!r}"
    return f"{where}: {message}"


def _loc_part(part: Any) -> str:
    if isinstance(part, str) and part.isidentifier():
        return f".{part}"
    return f"[{part!r}]"


def _suggest(title: str, loc: tuple[Any, ...]) -> str:
    """A 'did you mean' for an unknown field, found by walking the models along ``loc``."""
    owner = _model_at(getattr(model, title, None), loc[:-1])
    if owner is None:
        return ""
    close = difflib.get_close_matches(str(loc[-1]), list(owner.model_fields), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _model_at(annotation: Any, path: tuple[Any, ...]) -> type[pydantic.BaseModel] | None:
    """The model class reached from ``annotation`` along a pydantic error location."""
    for part in path:
        members = _union_members(annotation)
        if members:  # pydantic names the union member it tried, or there is one besides None
            named = [m for m in members if getattr(m, "__name__", None) == part]
            if named:
                annotation = named[0]
                continue
            annotation = members[0] if len(members) == 1 else None
        if _is_model(annotation):
            field = annotation.model_fields.get(part) if isinstance(part, str) else None
            if field is None:
                return None
            annotation = field.annotation
        elif typing.get_origin(annotation) in (list, tuple, dict):
            annotation = typing.get_args(annotation)[-1]
        else:
            return None
    members = _union_members(annotation)
    if len(members) == 1:
        annotation = members[0]
    return annotation if _is_model(annotation) else None


def _union_members(annotation: Any) -> list[Any]:
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return []
    return [a for a in typing.get_args(annotation) if a is not type(None)]


def _is_model(annotation: Any) -> TypeGuard[type[pydantic.BaseModel]]:
    return isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel)


def _take_fleet(namespace: dict[str, Any], source: str, filename: str) -> model.Fleet:
    fleet = namespace.get("fleet")
    if isinstance(fleet, model.Fleet):
        return fleet
    if fleet is None and "fleet" not in namespace:
        raise SpecError(
            [
                Problem(
                    "the spec defines no variable 'fleet' (end it with: fleet = Fleet(...))",
                    filename,
                    1,
                )
            ]
        )
    raise SpecError(
        [
            Problem(
                f"'fleet' must be a fleetgen.Fleet, not {type(fleet).__name__}",
                filename,
                _assignment_line(source, "fleet"),
            )
        ]
    )


def _assignment_line(source: str, name: str) -> int:
    """The line of the last top-level-or-nested assignment to ``name``."""
    line = 1
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            line = max(line, node.lineno)
    return line
