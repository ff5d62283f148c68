"""The writer on a real filesystem: render, ownership, pruning, adoption, conflicts, check."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fleetgen.write.output import HEADER, OutputFile
from fleetgen.write.writer import (
    Finding,
    OwnershipConflict,
    StateError,
    check,
    render,
    write,
)

VERSION = "1.2.3"
MANIFEST = ".fleetgen/manifest.json"

SPEC = {
    "README.md": "# fleet\n",
    "argocd/projects/orders.yaml": "kind: AppProject\n",
    "argocd/applicationsets/orders.yaml": "kind: ApplicationSet\n",
    "flux/clusters/a/orders.yaml": "kind: Kustomization\n",
    "flux/clusters/a/namespaces.yaml": "kind: Namespace\n",
    "flux/clusters/b/orders.yaml": "kind: Kustomization\n",
    "overlays/orders/dev/kustomization.yaml": "resources: [dev]\n",
    "overlays/orders/clusters/a/kustomization.yaml": "resources: [a]\n",
    "overlays/billing/dev/kustomization.yaml": "resources: [billing]\n",
}


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and directory (None) under ``root``, except ``.fleetgen/``."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative.split("/")[0] != ".fleetgen":
            found[relative] = None if path.is_dir() else path.read_bytes()
    return found


def encode(files: dict[str, str]) -> dict[str, bytes]:
    return {path: text.encode() for path, text in files.items()}


def stamps(root: Path) -> dict[str, tuple[int, int]]:
    """(inode, mtime) of every file under ``root``, the manifest included."""
    return {
        path.relative_to(root).as_posix(): (path.stat().st_ino, path.stat().st_mtime_ns)
        for path in root.rglob("*")
        if path.is_file()
    }


def age(root: Path) -> None:
    """Backdate every file so that a rewrite would show in its mtime."""
    for path in root.rglob("*"):
        os.utime(path, ns=(10**15, 10**15))


def without(files: dict[str, str], *paths: str) -> dict[str, str]:
    return {path: text for path, text in files.items() if path not in paths}


def test_render_yaml_with_header_and_comment_and_text_as_is() -> None:
    rendered = render(
        [
            OutputFile("b.yaml", ({"kind": "A"}, {"kind": "B"}), comment="first\n\nthird"),
            OutputFile("a/README.md", text="# Fleet  \nno header\n"),
        ]
    )
    assert list(rendered) == ["a/README.md", "b.yaml"]
    assert rendered["a/README.md"] == b"# Fleet  \nno header\n"
    yaml = rendered["b.yaml"].decode()
    assert yaml.startswith(HEADER + "# first\n#\n# third\n")
    assert yaml.endswith("kind: A\n---\nkind: B\n")


@pytest.mark.parametrize(
    ("paths", "culprit"),
    [
        (["a.yaml", "a.yaml"], "a.yaml"),
        (["/etc/a.yaml"], "/etc/a.yaml"),
        (["overlays/../../a.yaml"], "overlays/../../a.yaml"),
        (["overlays\\a.yaml"], "overlays\\\\a.yaml"),
        (["flux/clusters/a/flux-system/gotk-sync.yaml"], "flux-system/gotk-sync.yaml"),
        ([".fleetgen/manifest.json"], ".fleetgen/manifest.json"),
        (["a//b.yaml"], "a//b.yaml"),
        (["./a.yaml"], "./a.yaml"),
        ([""], "''"),
        (["a", "a/b.yaml"], "'a'"),
    ],
)
def test_render_refuses_paths_fleetgen_must_not_write(paths: list[str], culprit: str) -> None:
    with pytest.raises(ValueError, match=re.escape(culprit)):
        render([OutputFile(path, text="x") for path in paths])


def test_render_refuses_text_with_documents() -> None:
    with pytest.raises(ValueError, match=r"a\.yaml"):
        render([OutputFile("a.yaml", ({"a": 1},), text="a: 1\n")])


def test_first_write_creates_every_file_and_the_manifest(tmp_path: Path) -> None:
    out = tmp_path / "output"
    report = write(out, encode(SPEC), VERSION)
    assert report.written == sorted(SPEC)
    assert (report.unchanged, report.deleted, report.adopted) == (0, [], [])
    assert {p: c for p, c in tree(out).items() if c is not None} == encode(SPEC)
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest == {
        "fleetgen_version": VERSION,
        "files": {p: hashlib.sha256(t.encode()).hexdigest() for p, t in SPEC.items()},
    }
    assert sorted(p.name for p in (out / ".fleetgen").iterdir()) == [".gitignore", "manifest.json"]


def test_unchanged_rewrite_writes_nothing(tmp_path: Path) -> None:
    write(tmp_path, encode(SPEC), VERSION)
    age(tmp_path)
    before = stamps(tmp_path)
    report = write(tmp_path, encode(SPEC), VERSION)
    assert (report.written, report.unchanged, report.deleted) == ([], len(SPEC), [])
    assert stamps(tmp_path) == before


def test_changed_file_is_the_only_one_rewritten(tmp_path: Path) -> None:
    write(tmp_path, encode(SPEC), VERSION)
    age(tmp_path)
    before = stamps(tmp_path)
    changed = {**SPEC, "flux/clusters/a/orders.yaml": "kind: Kustomization\nspec: {}\n"}
    report = write(tmp_path, encode(changed), VERSION)
    assert (report.written, report.unchanged) == (["flux/clusters/a/orders.yaml"], len(SPEC) - 1)
    assert (tmp_path / "flux/clusters/a/orders.yaml").read_text() == changed[
        "flux/clusters/a/orders.yaml"
    ]
    after = stamps(tmp_path)
    assert {p for p in before if before[p] != after[p]} == {
        "flux/clusters/a/orders.yaml",
        MANIFEST,
    }


def test_hand_edited_owned_file_is_overwritten_and_reported(tmp_path: Path) -> None:
    write(tmp_path, encode(SPEC), VERSION)
    (tmp_path / "README.md").write_text("edited\n")
    report = write(tmp_path, encode(SPEC), VERSION)
    assert report.written == report.overwritten == ["README.md"]
    assert (tmp_path / "README.md").read_text() == SPEC["README.md"]


def test_only_hand_edits_count_as_overwritten(tmp_path: Path) -> None:
    write(tmp_path, encode(SPEC), VERSION)
    (tmp_path / "flux/clusters/b/orders.yaml").write_text("edited\n")  # and no longer generated
    changed = {**without(SPEC, "flux/clusters/b/orders.yaml"), "README.md": "new\n"}
    report = write(tmp_path, encode(changed), VERSION)
    assert "README.md" in report.written and "flux/clusters/b/orders.yaml" in report.deleted
    assert report.overwritten == ["flux/clusters/b/orders.yaml"]  # README.md was as written


def test_prunes_owned_files_and_the_directories_they_leave_empty(tmp_path: Path) -> None:
    write(tmp_path, encode(SPEC), VERSION)
    gone = [p for p in SPEC if p.startswith(("overlays/orders/", "flux/clusters/b/"))]
    report = write(tmp_path, encode(without(SPEC, *gone)), VERSION)
    assert report.deleted == sorted(gone)
    assert not (tmp_path / "overlays/orders").exists()
    assert not (tmp_path / "flux/clusters/b").exists()
    assert (tmp_path / "overlays/billing/dev/kustomization.yaml").exists()
    assert tree(tmp_path) == tree_of(tmp_path, without(SPEC, *gone))
    assert set(json.loads((tmp_path / MANIFEST).read_text())["files"]) == set(SPEC) - set(gone)


def tree_of(root: Path, files: dict[str, str]) -> dict[str, bytes | None]:
    """What ``tree`` returns for a directory holding exactly ``files``."""
    expected: dict[str, bytes | None] = {}
    for path, text in files.items():
        parts = path.split("/")
        expected.update({"/".join(parts[:i]): None for i in range(1, len(parts))})
        expected[path] = text.encode()
    return dict(sorted(expected.items()))


def test_unowned_files_survive_byte_for_byte_even_when_their_cluster_goes(tmp_path: Path) -> None:
    write(tmp_path, encode(SPEC), VERSION)
    unowned = {
        "flux/clusters/a/flux-system/gotk-sync.yaml": b"kind: GitRepository\n\xff raw bytes\n",
        "flux/clusters/a/flux-system/kustomization.yaml": b"resources: [gotk-sync.yaml]\n",
        "notes.txt": b"hand-made notes\r\n",
        "overlays/orders/README.md": b"ours, not fleetgen's\n",
    }
    for path, content in unowned.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(content)
    gone = [p for p in SPEC if p.startswith(("flux/clusters/a/", "overlays/orders/"))]

    write(tmp_path, encode(without(SPEC, *gone)), VERSION)

    for path, content in unowned.items():
        assert (tmp_path / path).read_bytes() == content
    assert sorted(os.listdir(tmp_path / "flux/clusters/a")) == ["flux-system"]
    assert sorted(os.listdir(tmp_path / "overlays/orders")) == ["README.md"]


def test_unowned_files_in_the_way_raise_before_anything_is_written(tmp_path: Path) -> None:
    write(tmp_path, encode(SPEC), VERSION)
    (tmp_path / "argocd/clusters").mkdir()
    (tmp_path / "argocd/clusters/a.yaml").write_text("kind: Secret\n")
    (tmp_path / "overlays/payments").write_text("a file where a directory goes\n")
    (tmp_path / "flux/clusters/c.yaml").mkdir()
    age(tmp_path)
    before, stamps_before = tree(tmp_path), stamps(tmp_path)
    new = {
        **without(SPEC, "README.md"),
        "argocd/projects/orders.yaml": "kind: AppProject\nspec: {}\n",
        "argocd/clusters/a.yaml": "kind: ExternalSecret\n",
        "overlays/payments/dev/kustomization.yaml": "resources: [payments]\n",
        "flux/clusters/c.yaml": "kind: Kustomization\n",
    }
    with pytest.raises(OwnershipConflict) as raised:
        write(tmp_path, encode(new), VERSION)
    assert [(f.path, f.kind) for f in raised.value.findings] == [
        ("argocd/clusters/a.yaml", "unowned-conflict"),
        ("flux/clusters/c.yaml", "unowned-conflict"),
        ("overlays/payments/dev/kustomization.yaml", "unowned-conflict"),
    ]
    message = str(raised.value)
    assert "overlays/payments is a file, not a directory" in message
    assert "a directory is in the way" in message
    assert "Move them away or delete them" in message
    assert (tree(tmp_path), stamps(tmp_path)) == (before, stamps_before)


def test_identical_unowned_file_is_adopted_without_rewriting(tmp_path: Path) -> None:
    write(tmp_path, encode(without(SPEC, "README.md")), VERSION)
    (tmp_path / "README.md").write_text(SPEC["README.md"])
    age(tmp_path)
    inode_before = stamps(tmp_path)["README.md"]
    report = write(tmp_path, encode(SPEC), VERSION)
    assert (report.written, report.adopted) == ([], ["README.md"])
    assert stamps(tmp_path)["README.md"] == inode_before
    assert "README.md" in json.loads((tmp_path / MANIFEST).read_text())["files"]
    # Owned now: dropping it from the spec deletes it.
    assert write(tmp_path, encode(without(SPEC, "README.md")), VERSION).deleted == ["README.md"]


def test_owned_file_and_directory_may_swap_places(tmp_path: Path) -> None:
    write(tmp_path, {"a": b"file\n", "b/c.yaml": b"c\n"}, VERSION)
    write(tmp_path, {"a/x.yaml": b"x\n", "b": b"file\n"}, VERSION)
    assert tree(tmp_path) == {"a": None, "a/x.yaml": b"x\n", "b": b"file\n"}


def test_directory_in_the_way_with_unowned_files_is_a_conflict(tmp_path: Path) -> None:
    write(tmp_path, {"b/c.yaml": b"c\n"}, VERSION)
    (tmp_path / "b/notes.txt").write_text("mine\n")
    with pytest.raises(OwnershipConflict, match="b: a directory is in the way"):
        write(tmp_path, {"b": b"file\n"}, VERSION)
    assert tree(tmp_path) == {"b": None, "b/c.yaml": b"c\n", "b/notes.txt": b"mine\n"}


def test_never_writes_or_deletes_through_a_symlinked_directory(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    write(out, encode(SPEC), VERSION)
    (out / "flux/clusters/b").rename(elsewhere)
    (out / "flux/clusters/b").symlink_to(elsewhere, target_is_directory=True)
    changed = {**SPEC, "flux/clusters/b/orders.yaml": "kind: Kustomization\nspec: {}\n"}
    with pytest.raises(OwnershipConflict, match="flux/clusters/b is a symbolic link"):
        write(out, encode(changed), VERSION)
    report = write(out, encode(without(SPEC, "flux/clusters/b/orders.yaml")), VERSION)
    assert report.deleted == []
    assert (elsewhere / "orders.yaml").read_text() == SPEC["flux/clusters/b/orders.yaml"]


def test_write_checks_paths_it_is_given_directly(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=re.escape("'../escape.yaml'")):
        write(tmp_path / "out", {"../escape.yaml": b"x\n"}, VERSION)
    assert not (tmp_path / "out").exists()


def test_owned_file_removed_by_hand_is_dropped_from_the_manifest(tmp_path: Path) -> None:
    write(tmp_path, encode(SPEC), VERSION)
    (tmp_path / "README.md").unlink()
    report = write(tmp_path, encode(without(SPEC, "README.md")), VERSION)
    assert (report.written, report.deleted) == ([], [])
    assert "README.md" not in json.loads((tmp_path / MANIFEST).read_text())["files"]


def test_check_is_empty_when_up_to_date_and_writes_nothing(tmp_path: Path) -> None:
    write(tmp_path, encode(SPEC), VERSION)
    (tmp_path / "flux/clusters/a/flux-system").mkdir()
    (tmp_path / "flux/clusters/a/flux-system/gotk-sync.yaml").write_text("kind: GitRepository\n")
    age(tmp_path)
    before = stamps(tmp_path)
    assert check(tmp_path, encode(SPEC), version=VERSION) == []
    assert stamps(tmp_path) == before


def test_check_reports_every_kind_of_difference(tmp_path: Path) -> None:
    write(tmp_path, encode(SPEC), VERSION)
    (tmp_path / "README.md").unlink()  # missing
    (tmp_path / "flux/clusters/a/orders.yaml").write_text("kind: Kustomization # mine\n")
    (tmp_path / "argocd/clusters").mkdir()
    (tmp_path / "argocd/clusters/a.yaml").write_text("kind: Secret\n")
    (tmp_path / "argocd/clusters/b.yaml").write_text("kind: ExternalSecret\n")
    new = {
        **without(SPEC, "flux/clusters/b/orders.yaml"),  # extra
        "argocd/projects/orders.yaml": "kind: AppProject\nspec: {}\n",  # stale
        "argocd/clusters/a.yaml": "kind: ExternalSecret\n",  # unowned, different
        "argocd/clusters/b.yaml": "kind: ExternalSecret\n",  # unowned, identical
    }
    before = stamps(tmp_path)
    findings = check(tmp_path, encode(new), version="9.9.9")
    assert [(f.path, f.kind) for f in findings] == [
        (MANIFEST, "stale"),
        ("README.md", "missing"),
        ("argocd/clusters/a.yaml", "unowned-conflict"),
        ("argocd/clusters/b.yaml", "unowned-conflict"),
        ("argocd/projects/orders.yaml", "stale"),
        ("flux/clusters/a/orders.yaml", "hand-edited"),
        ("flux/clusters/b/orders.yaml", "extra"),
    ]
    assert "adopts" in findings[3].detail
    assert stamps(tmp_path) == before


def test_check_reports_a_manifest_that_disagrees_with_correct_bytes(tmp_path: Path) -> None:
    write(tmp_path, encode(SPEC), VERSION)
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    manifest["files"]["README.md"] = "0" * 64
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    assert check(tmp_path, encode(SPEC)) == [
        Finding("README.md", "hand-edited", check(tmp_path, encode(SPEC))[0].detail)
    ]
    write(tmp_path, encode(SPEC), VERSION)
    assert check(tmp_path, encode(SPEC)) == []


def test_check_is_empty_after_write_and_not_before(tmp_path: Path) -> None:
    assert {f.kind for f in check(tmp_path / "out", encode(SPEC))} == {"missing"}
    write(tmp_path / "out", encode(SPEC), VERSION)
    assert check(tmp_path / "out", encode(SPEC), version=VERSION) == []


def test_manifest_bytes_are_deterministic(tmp_path: Path) -> None:
    forward = encode(SPEC)
    backward = dict(reversed(forward.items()))
    write(tmp_path / "one", forward, VERSION)
    write(tmp_path / "two", backward, VERSION)
    first = (tmp_path / "one" / MANIFEST).read_bytes()
    assert first == (tmp_path / "two" / MANIFEST).read_bytes()
    assert first.endswith(b"}\n")
    assert first.decode() == json.dumps(json.loads(first), indent=1, sort_keys=True) + "\n"


@pytest.mark.parametrize(
    "manifest",
    [
        "not json",
        '{"fleetgen_version": "1", "files": {"../../etc/passwd": "00"}}',
        '{"fleetgen_version": "1", "files": {"/etc/passwd": "00"}}',
        '{"fleetgen_version": "1"}',
    ],
)
def test_unreadable_or_unsafe_manifest_is_refused(tmp_path: Path, manifest: str) -> None:
    (tmp_path / ".fleetgen").mkdir()
    (tmp_path / MANIFEST).write_text(manifest)
    with pytest.raises(StateError, match="restore it from Git"):
        write(tmp_path, encode(SPEC), VERSION)
    assert tree(tmp_path) == {}


CONCURRENT_WRITER = """
import sys
from pathlib import Path
from fleetgen.write.writer import write
out, tag = Path(sys.argv[1]), sys.argv[2]
for round in range(3):
    write(out, {f"d{i % 20}/f{i}.yaml": f"{tag} {round} {i}\\n".encode() for i in range(300)}, "1")
"""


def test_concurrent_builds_do_not_interleave(tmp_path: Path) -> None:
    """Two builds of one output directory at once: each commits whole; nothing is left over."""
    out = tmp_path / "out"
    out.mkdir()
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT_WRITER, str(out), tag],
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b")
    ]
    for run in runs:
        _, stderr = run.communicate(timeout=120)
        assert run.returncode == 0, stderr
    files = tree(out)
    contents = {data for data in files.values() if data is not None}
    assert len(contents) == 300 and len({c.split()[0] for c in contents}) == 1
    assert check(out, {p: d for p, d in files.items() if d is not None}) == []
    assert sorted(os.listdir(out / ".fleetgen")) == [".gitignore", "manifest.json"]
