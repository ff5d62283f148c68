"""The docs a user has: docs/spec.md generated and current, links that stay in the repository."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

from pydantic import BaseModel

import fleetgen
from fleetgen.model import Spec, reference

ROOT = Path(__file__).resolve().parent.parent
SPEC_DOC = ROOT / "docs" / "spec.md"
OUTSIDE = b"../" + b"shared"  # spelled in two so that this file does not mention it
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


class _Base(Spec):
    """A base.

    Attributes:
        inherited: Described once,
            on two lines.
    """

    inherited: int = 1


class _Toy(_Base):
    """A toy.

    Attributes:
        own: Its own field.
    """

    own: str
    undescribed: bool = False


def test_docs_spec_md_is_current() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "spec-reference"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert SPEC_DOC.read_text(encoding="utf-8") == reference.reference()


def test_every_field_of_every_exported_class_is_described() -> None:
    assert reference.undescribed() == []


def test_every_exported_class_and_field_is_in_the_reference() -> None:
    doc = SPEC_DOC.read_text(encoding="utf-8")
    sections = dict(re.findall(r"^### (\w+)\n(.*?)(?=^##|\Z)", doc, re.M | re.S))
    classes = [v for v in (getattr(fleetgen, n) for n in fleetgen.__all__) if isinstance(v, type)]
    assert sorted(sections) == sorted(c.__name__ for c in classes)
    for cls in classes:
        names = (
            list(cls.model_fields)
            if issubclass(cls, BaseModel)
            else [field.name for field in dataclasses.fields(cls)]
        )  # type: ignore[arg-type]
        for name in names:
            assert f"| `{name}` |" in sections[cls.__name__], f"{cls.__name__}.{name}"


def test_rows_take_descriptions_from_the_docstrings_of_the_class_and_its_bases() -> None:
    assert reference.rows(_Toy) == [
        reference.Row("own", "str", "required", "Its own field."),
        reference.Row("undescribed", "bool", "`False`", ""),
        reference.Row("inherited", "int", "`1`", "Described once, on two lines."),
    ]


def test_types_and_defaults_read_as_in_python() -> None:
    rows = {row.name: row for row in reference.rows(fleetgen.Fleet)}
    assert rows["engines"].type == "list\\['argocd' \\| 'flux'\\]"
    assert rows["environments"].type == "list\\[[Environment](#environment)\\]"
    assert rows["name"].type == "[Name](#value-types)"
    assert (rows["sync"].default, rows["environments"].default) == ("`SyncPolicy()`", "required")
    argo = {row.name: row for row in reference.rows(fleetgen.ArgoOptions)}
    assert argo["min_version"].type == "[Version](#value-types)"  # Annotated[Version, more]


def _tracked() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return [ROOT / name for name in listed.split("\0") if name]


def test_nothing_outside_scripts_and_ci_mentions_the_shared_folder() -> None:
    mentions = [
        path.relative_to(ROOT).as_posix()
        for path in _tracked()
        if path.parts[len(ROOT.parts)] not in ("scripts", ".ci")
        and path.is_file()
        and OUTSIDE in path.read_bytes()
    ]
    assert mentions == []


def test_every_relative_link_of_the_docs_points_into_the_repository() -> None:
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            resolved = (page.parent / target).resolve()
            assert resolved.is_relative_to(ROOT) and resolved.exists(), f"{page.name}: {target}"
