"""The package's shape (docs/architecture.md): imports point down the packages' order, a small
package root, modules under 500 lines, one way each to run Git, parse a command line and read
YAML. Read from the source's syntax trees, every import counted (lazy ones in functions too)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "fleetgen"

# Low to high: a package may import those before it, never one after it (docs/architecture.md).
ORDER = [
    "util",
    "manifests",
    "rules",
    "model",
    "write",
    "inputs",
    "tools",
    "resolver",
    "emit",
    "settle",
    "pipeline",
    "scaffold",
    "validate",
    "explain",
    "importer",
    "diffs",
    "cli",
]
# The root's modules every package may import (they import no package of fleetgen).
ROOT_LEAVES = {"errors", "version"}


def _modules() -> Iterator[tuple[str, Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        dotted = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        yield dotted.removesuffix(".__init__"), path, ast.parse(path.read_text(), str(path))


def _imported(module: str, tree: ast.Module, is_package: bool) -> Iterator[tuple[str, int]]:
    """Every fleetgen module or package ``module`` imports, with the line."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")[: len(module.split(".")) - node.level + is_package]
                base = ".".join([*parts, *([base] if base else [])])
            yield from ((f"{base}.{alias.name}", node.lineno) for alias in node.names)


def _package_of(dotted: str) -> str | None:
    """The top-level package of fleetgen a dotted name is in (None: the root or elsewhere)."""
    parts = dotted.split(".")
    if parts[0] != "fleetgen" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in ORDER else None


def test_imports_point_down_the_packages_order() -> None:
    upward = []
    for module, path, tree in _modules():
        source = _package_of(module)
        for target, line in _imported(module, tree, path.name == "__init__.py"):
            found = _package_of(target)
            if source is None and module != "fleetgen" and found is not None:
                root = module.split(".")[1]
                if root in ROOT_LEAVES:
                    upward.append(f"{path.name}:{line}: the root's {root} imports {target}")
            elif source and found and ORDER.index(found) > ORDER.index(source):
                upward.append(f"{path.relative_to(PACKAGE)}:{line}: {source} imports {target}")
    assert upward == []


def test_the_package_root_holds_at_most_fifteen_modules() -> None:
    assert {path.name for path in PACKAGE.glob("*.py")} == {
        "__init__.py",
        "__main__.py",
        "ci_report.py",
        "errors.py",
        "version.py",
    }
    packages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert packages - {"templates"} == set(ORDER)


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.relative_to(PACKAGE).as_posix()
)
def test_every_module_is_under_500_lines(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines < 500, f"{path.relative_to(PACKAGE)}: {lines} lines"


def _calls(tree: ast.Module) -> Iterator[ast.Call]:
    return (node for node in ast.walk(tree) if isinstance(node, ast.Call))


def test_one_way_each_git_command_line_and_yaml_reader() -> None:
    """GitPython for Git, typer for command lines, `fleetgen.manifests.yamlio` to read YAML."""
    found = []
    for module, path, tree in _modules():
        where = path.relative_to(PACKAGE)
        for target, line in _imported(module, tree, path.name == "__init__.py"):
            if target.split(".")[0] == "argparse":
                found.append(f"{where}:{line}: argparse")
        for call in _calls(tree):
            name = ast.unparse(call.func)
            first = ast.unparse(call.args[0]) if call.args else ""
            if name.startswith("subprocess.") and first.lstrip("[(").startswith(("'git'", '"git"')):
                found.append(f"{where}:{call.lineno}: {name} of git")
            reads = name.startswith("yaml.") and ("load" in name or "compose" in name)
            if reads and module != "fleetgen.manifests.yamlio":
                found.append(f"{where}:{call.lineno}: {name}")
    assert found == []
