"""The incremental seam (`fleetgen.pipeline.incremental`): a no-op build and ``build --check`` come
from the compile record and the tree proof; warm output is byte-identical to cold; every input
invalidates; damaged entries are ignored."""

from __future__ import annotations

import argparse
import marshal
import shutil
import sys
import time
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fleetgen import resolver
from fleetgen.model import SyncPolicy
from fleetgen.pipeline import api, incremental
from fleetgen.util.cache import CACHE_DIR, Cache, code_identity, tree_digest
from fleetgen.write import writer
from fleetgen.write.output import OutputFile
from tests.helpers import tree

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_build import make_repo  # noqa: E402
from run import FLEET, ONE_APP  # noqa: E402


def _example(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(ROOT / "fleet.py", repo / "fleet.py")
    shutil.copytree(ROOT / "apps", repo / "apps")
    shutil.copytree(ROOT / "charts", repo / "charts")
    return repo / "fleet.py"


def _cold(spec: Path, name: str) -> dict[str, bytes]:
    """The tree a build without cache writes into the empty folder ``name`` beside fleet.py (as
    output/ is: the overlays reach the bases from where they land)."""
    where = spec.parent / name
    api.build(spec, where, use_cache=False)
    return tree(where)


def _no_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any resolve fail: what runs afterwards must come from the cache."""

    def refuse(*_: Any) -> None:
        raise AssertionError("compiled although the cache holds this build")

    monkeypatch.setattr(resolver, "resolve", refuse)  # what the compile's stages call


def test_noop_build_and_check_come_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _example(tmp_path)
    # On the Flux 2.7 floor the example warns (ignore_differences): the cache keeps warnings too.
    spec.write_text(spec.read_text().replace('min_version="2.9"', 'min_version="2.7"'))
    first = api.build(spec)
    assert first.warnings
    out = first.out_dir
    before = tree(out)
    _no_compile(monkeypatch)
    again = api.build(spec)
    assert again.report.written == [] and again.report.deleted == []
    assert again.report.unchanged == first.report.unchanged + len(first.report.written)
    assert again.placements == first.placements
    assert again.warnings == first.warnings
    checked = api.check(spec)
    assert checked.findings == [] and checked.warnings == first.warnings
    assert tree(out) == before


def test_the_record_keeps_a_digest_per_input(tmp_path: Path) -> None:
    """fleet.py, each base and chart directory, and the code: what ``--check`` can name."""
    spec = _example(tmp_path)
    out = api.build(spec).out_dir
    memo = incremental.Memo(out, api.load(spec))
    record = memo.record()
    assert record is not None and memo.inputs is not None
    assert record.inputs == memo.inputs.digests
    assert record.inputs["fleetgen"] == code_identity()
    assert {"fleet.py", "base:apps/api-service/base", "chart:charts/status-page"} <= set(
        record.inputs
    )
    configmap = spec.parent / "apps/order-service/base/configmap.yaml"
    configmap.write_text(configmap.read_text().replace("order-config", "order-config-2"))
    edited = incremental.inputs(api.load(spec))
    assert edited is not None
    assert {name for name, digest in edited.digests.items() if record.inputs[name] != digest} == {
        "base:apps/order-service/base"
    }


def test_a_hand_edit_is_seen_through_the_cache(tmp_path: Path) -> None:
    spec = _example(tmp_path)
    out = api.build(spec).out_dir
    edited = sorted(p for p in out.rglob("*.yaml") if ".fleetgen" not in p.parts)[0]
    original = edited.read_bytes()
    edited.write_bytes(original.replace(b"fleetgen", b"fleetgem", 1))  # same size
    assert [f.kind for f in api.check(spec).findings] == ["hand-edited"]
    assert api.build(spec).report.overwritten == [edited.relative_to(out).as_posix()]
    assert edited.read_bytes() == original
    edited.unlink()
    assert [f.kind for f in api.check(spec).findings] == ["missing"]


def test_the_tree_record_keeps_the_stat_a_file_was_proven_with(tmp_path: Path) -> None:
    """`incremental.record_tree` records a file the build proved and did not write with the
    stat of its proof: one edited between the proof and the record is read again by the next
    build (a stat taken at the record would vouch for the edit)."""
    spec = _example(tmp_path)
    out = api.build(spec).out_dir
    cache, manifest = Cache(out), writer.current_manifest(out)
    assert manifest is not None
    proven = incremental.unchanged_files(cache, out, manifest)
    path = sorted(p for p in proven if p.endswith(".yaml"))[0]
    (out / path).write_bytes((out / path).read_bytes() + b"# edited\n")
    time.sleep(0.1)  # past the racy window: the edit's stat would be recorded
    incremental.record_tree(cache, out, manifest, proven)
    assert path not in incremental.unchanged_files(cache, out, manifest)
    assert [f.kind for f in api.check(spec).findings] == ["hand-edited"]


def test_no_cache_compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _example(tmp_path)
    api.build(spec)
    _no_compile(monkeypatch)
    with pytest.raises(AssertionError, match="compiled although"):
        api.build(spec, use_cache=False)
    with pytest.raises(AssertionError, match="compiled although"):
        api.check(spec, use_cache=False)


def test_damaged_or_foreign_cache_is_ignored_and_rebuilt(tmp_path: Path) -> None:
    spec = _example(tmp_path)
    out = api.build(spec).out_dir
    entries = sorted((out / CACHE_DIR).rglob("*.bin"))
    assert {p.parent.parent.name for p in entries} == {
        incremental.COMPILE,
        incremental.TREE,
        incremental.STORED,
        incremental.BUILT,
    }
    others = [entry.read_bytes() for entry in entries[1:] + entries[:1]]
    for number, (entry, other) in enumerate(zip(entries, others, strict=True)):
        namespace = entry.parent.parent.name
        if number % 4 == 0:
            entry.write_bytes(b"")
        elif number % 4 == 1:
            entry.write_bytes(entry.read_bytes()[:-10])
        elif number % 4 == 2:
            entry.write_bytes(other)  # another key's entry
        else:  # intact, but not of the shape this code writes
            Cache(out).put(namespace, entry.stem, {"files": 3})
    spec.write_text(spec.read_text() + "\n")  # same spec: the damaged entries are its entries
    assert api.build(spec).report.written == []
    assert tree(out) == _cold(spec, "cold")
    assert api.check(spec).findings == []


def test_inputs_outside_the_spec_fields_invalidate(tmp_path: Path) -> None:
    """A base's files (the workspace) and the lines of the spec (warnings) are inputs too."""
    spec = _example(tmp_path)
    api.build(spec)
    configmap = spec.parent / "apps/order-service/base/configmap.yaml"
    configmap.write_text(
        configmap.read_text().replace("name: order-config", "name: order-config-2")
    )
    rebuilt = api.build(spec)
    assert tree(rebuilt.out_dir) == _cold(spec, "cold1")
    chart = spec.parent / "charts/status-page/Chart.yaml"  # a chart's version is an input too
    chart.write_text(chart.read_text().replace("version: 0.1.0", "version: 0.2.0"))
    rebuilt = api.build(spec)
    assert rebuilt.report.written
    assert tree(rebuilt.out_dir) == _cold(spec, "cold2")
    # The example builds without warnings; on the Flux 2.7 floor it warns (ignore_differences).
    spec.write_text(spec.read_text().replace('min_version="2.9"', 'min_version="2.7"'))
    warnings = [w.line for w in api.build(spec).warnings]
    assert warnings
    spec.write_text("\n\n" + spec.read_text())
    moved = api.build(spec).warnings
    assert [w.line for w in moved] == [line + 2 if line else 0 for line in warnings]


CA_FLEET = """\
from fleetgen import App, AwsAuth, CaFile, Cluster, Environment, Fleet, HelmChart, Project

ROLE = "arn:aws:iam::111122223333:role/argocd"
fleet = Fleet(
    name="ca",
    repo="https://github.com/acme/ca.git",
    environments=[Environment(name="prod")],
    clusters=[
        Cluster(name="eks", env="prod", server="https://eks.example.com",
                credentials=AwsAuth(cluster_name="eks", role_arn=ROLE),
                ca_data=CaFile("certs/eks.pem")),
    ],
    projects=[Project(name="web", namespaces=["web"])],
    apps=[App(name="web", project="web", namespace="web",
              chart=HelmChart(repo="https://charts.example.com", name="web", version="1.0.0"))],
)
"""


def _pem(body: str) -> str:
    return f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n"


def test_a_ca_file_is_an_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file a CaFile names is read at build: a change to it rebuilds the registration (the
    record names it), and an unchanged one leaves the build to the cache."""
    spec = tmp_path / "fleet.py"
    spec.write_text(CA_FLEET)
    (tmp_path / "certs").mkdir()
    ca = tmp_path / "certs/eks.pem"
    ca.write_text(_pem("MIIB"))
    out = api.build(spec).out_dir
    record = incremental.Memo(out, api.load(spec)).record()
    assert record is not None and "ca:certs/eks.pem" in record.inputs
    ca.write_text(_pem("MIIC"))
    edited = incremental.inputs(api.load(spec))
    assert edited is not None
    assert {name for name, digest in edited.digests.items() if record.inputs[name] != digest} == {
        "ca:certs/eks.pem"
    }
    assert [f.path for f in api.check(spec).findings] == ["argocd/clusters/eks.yaml"]
    assert api.build(spec).report.written == ["argocd/clusters/eks.yaml"]
    assert tree(out) == _cold(spec, tmp_path / "cold")
    _no_compile(monkeypatch)
    assert api.build(spec).report.written == []


def test_a_code_change_makes_other_keys(tmp_path: Path) -> None:
    """An edited emitter in a checkout whose version did not move must not reuse old entries."""
    code = tmp_path / "pkg"
    (code / "__pycache__").mkdir(parents=True)
    (code / "emit.py").write_text("A = 1\n")
    before = tree_digest([code])
    (code / "__pycache__" / "emit.cpython-312.pyc").write_bytes(b"bytecode")
    assert tree_digest([code]) == before
    (code / "emit.py").write_text("A = 2\n")
    assert tree_digest([code]) != before
    assert code_identity().endswith(tree_digest([Path(str(resources.files("fleetgen")))]))


def test_stored_files_tell_apart_what_renders_differently() -> None:
    """Data that YAML writes differently never has the same stored bytes (diff compares stored
    files by them); types marshal cannot write are refused."""

    def stored(*documents: Any) -> bytes:
        return incremental.serialize(OutputFile("f.yaml", documents))

    variants = [
        {"a": 1},
        {"a": True},
        {"a": "1"},
        {1: "a"},
        {"1": "a"},
        {"a": 1.0},
        {"a": [1]},
        {"a": (1,)},
        {"a": 1, "b": 2},
        {"b": 2, "a": 1},
    ]
    found = [stored(doc) for doc in variants]
    assert len(set(found)) == len(found)
    with pytest.raises(ValueError):
        stored({"a": type("Name", (str,), {})("x")})  # a str subclass
    assert incremental.serialize(OutputFile("f.yaml", ({"a": 1},), comment="c")) != stored({"a": 1})


def test_stored_bytes_depend_on_the_content_alone() -> None:
    """Equal data, whatever else references it, has the same stored bytes: marshal's formats 3
    and 4 flag an object with more than one reference, so their bytes follow reference counts."""
    alone = incremental.serialize(OutputFile("f.yaml", ({"spec": {"path": "./a" * 2}},)))
    spec = {"path": "./a" * 2}
    held = [spec]  # referenced by the document and by this list
    assert incremental.serialize(OutputFile("f.yaml", ({"spec": spec},))) == alone
    assert held


def _key(value: Any) -> bytes:
    return marshal.dumps(incremental.canonical(value), 2)


def test_canonical_refuses_what_it_cannot_serialize() -> None:
    with pytest.raises(incremental.Uncacheable):
        incremental.canonical(object())
    assert _key({"a": 1, "b": 2}) != _key({"b": 2, "a": 1})
    assert _key(frozenset("ab")) == _key(frozenset("ba"))


def test_canonical_forms_tell_apart_what_a_compile_reads() -> None:
    """Types, order, explicitly set fields and the line a model was built at are all inputs."""
    values = [
        1,
        True,
        1.0,
        "1",
        None,
        [1],
        {"a": 1},
        {"a": 1, "b": 2},
        {"b": 2, "a": 1},
        {"a": {"b": 1}},
        {"a": {"b": 2}},
    ]
    keys = [_key(value) for value in values]
    assert len(set(keys)) == len(keys)
    implicit, explicit = SyncPolicy(), SyncPolicy(prune=SyncPolicy().prune)
    assert implicit == explicit
    assert _key(implicit) != _key(explicit)
    here = SyncPolicy()  # another line of the spec: warnings name it
    there = SyncPolicy()
    assert _key(here) != _key(there)
    assert _key(here) == _key(here.model_copy())
    assert _key(Color.RED) == _key("red")


class Color(StrEnum):
    RED = "red"


def _synthetic(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    return repo / "fleet.py", make_repo(
        repo, argparse.Namespace(clusters=40, apps=10, cascade=False), FLEET
    )


def test_a_one_app_edit_writes_only_the_files_whose_bytes_changed(tmp_path: Path) -> None:
    spec, source = _synthetic(tmp_path)
    api.build(spec)
    before = tree(spec.parent / "output")
    spec.write_text(source.replace(*ONE_APP))
    report = api.build(spec).report
    after = tree(spec.parent / "output")
    assert report.written and len(report.written) < 10
    assert set(report.written) == {
        path for path in after if before.get(path) != after[path] and ".fleetgen" not in path
    }
    assert after == _cold(spec, "cold")
    assert api.check(spec, use_cache=False).findings == []


def test_a_tree_changed_after_the_proof_is_written_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another build between the tree proof and the write (app 3's tag) changes files the proof
    vouched for: the write reads the manifest it finds, so the tree ends as a cold build's."""
    spec, source = _synthetic(tmp_path)
    api.build(spec)
    write = writer.write

    def interleaved(*args: Any, **options: Any) -> writer.WriteReport:
        monkeypatch.setattr(writer, "write", write)
        spec.write_text(source.replace("TAGS = {}", "TAGS = {3: '2.0'}"))
        api.build(spec)
        spec.write_text(source.replace(*ONE_APP))
        return write(*args, **options)

    spec.write_text(source.replace(*ONE_APP))
    monkeypatch.setattr(writer, "write", interleaved)
    api.build(spec)
    assert writer.write is write  # the interleaved build ran
    assert tree(spec.parent / "output") == _cold(spec, "cold")
    assert api.check(spec).findings == []


SPEC = """
from fleetgen import (App, Cluster, Environment, ExternalSecretRef, Fleet, Image, Overrides,
                      Project, SyncPolicy)

fleet = Fleet(
    name="f", repo="https://git.example.com/f.git",
    default_credentials=ExternalSecretRef(store="vault", key="clusters/{{cluster}}"),
    environments=[Environment(name="dev", sync=SyncPolicy(automated={automated})),
                  Environment(name="prod")],
    clusters=[Cluster(name=f"c{{i}}", env=["dev", "prod"][i % 2],
                      server=f"https://c{{i}}.example.com") for i in range({clusters})],
    projects=[Project(name="p", namespaces=["ns"])],
    apps=[App(name=f"a{{a}}", project="p", namespace="ns", path="apps/app/base",
              images=[Image(name="app", tag={tags}[a])],
              per_cluster={{"c0": Overrides(replicas={{"app": {replicas}}})}} if a == 0 else {{}})
          for a in range({apps})],
)
"""
EDITS = st.sampled_from(["tag", "replicas", "automated", "clusters", "apps", "base"])


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=st.lists(st.tuples(EDITS, st.integers(0, 3)), min_size=1, max_size=5))
def test_random_edit_sequences_warm_equals_cold(
    tmp_path: Path, edits: list[tuple[str, int]]
) -> None:
    work = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
    repo = work / "repo"
    repo.mkdir(parents=True)
    make_repo(repo, argparse.Namespace(), "")
    state = {
        "automated": "True",
        "clusters": 3,
        "apps": 3,
        "tags": ["1", "1", "1", "1"],
        "replicas": 2,
    }
    spec = repo / "fleet.py"
    for step, (edit, value) in enumerate(edits):
        if edit == "tag":
            state["tags"] = [*state["tags"][:value], str(step), *state["tags"][value + 1 :]]
        elif edit == "replicas":
            state["replicas"] = value + 1
        elif edit == "automated":
            state["automated"] = str(value % 2 == 0)
        elif edit in ("clusters", "apps"):
            state[edit] = value + 1
        else:
            deployment = repo / "apps/app/base/deployment.yaml"
            deployment.write_text(deployment.read_text() + f"# edit {step}\n")
        spec.write_text(SPEC.format(**{**state, "tags": repr(state["tags"])}))
        api.build(spec)
        assert api.check(spec).findings == []
        assert tree(repo / "output") == _cold(spec, f"cold{step}")
