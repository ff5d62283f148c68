"""``fleetgen import``: Argo CD's git files generators, evaluated as the ApplicationSet controller
does (argo-cd applicationset/generators/git.go), on real files; the goldens ``argocd-autopilot``
and ``argocd-gitfiles`` run them end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from fleetgen.importer.argocd.generators import template_of
from fleetgen.importer.argocd.gitfiles import (
    NotParams,
    file_params,
    go_text,
    matching_files,
    path_params,
)
from fleetgen.importer.repo import read_repo

FILES = (
    "apps/web/overlays/prod/config.json",
    "apps/web/overlays/prod/deep/config.json",
    "apps/api/prod/config.json",
    "apps/config.json",
    "clusters/dev/config.yaml",
)


def _repo(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _matched(root: Path, *paths: str, exclude: str = "") -> list[str]:
    entries = [{"path": p} for p in paths] + (
        [{"path": exclude, "exclude": True}] if exclude else []
    )
    return matching_files(read_repo(root), entries)


def test_globs_match_as_git_ls_files_by_default(tmp_path: Path) -> None:
    """The controller's default lists files with ``git ls-files -- PATTERN`` (util/git
    ``nativeGitClient.LsFiles`` without new globbing): a pathspec's ``*`` also matches ``/``,
    so ``apps/*/config.json`` reaches any depth; ``exclude: true`` entries take files out
    (``generateParamsForGitFiles``)."""
    root = _repo(tmp_path, dict.fromkeys(FILES, "{}"))
    assert _matched(root, "apps/*/config.json") == sorted(FILES[:3])
    assert _matched(root, "apps/**/prod/config.json", exclude="apps/web/*/deep/*") == [
        "apps/api/prod/config.json",
        "apps/web/overlays/prod/config.json",
    ]
    assert _matched(root, "clusters") == ["clusters/dev/config.yaml"]  # a leading folder


def test_new_globbing_matches_as_doublestar(tmp_path: Path) -> None:
    """With ``applicationsetcontroller.enable.new.git.file.globbing`` true in
    argocd-cmd-params-cm, ``LsFiles`` globs with doublestar (``FilepathGlob``): ``*`` stays
    within a folder, ``**`` is any number of them, none included."""
    params_cm = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cmd-params-cm}\n"
        'data: {applicationsetcontroller.enable.new.git.file.globbing: "true"}\n'
    )
    root = _repo(tmp_path, {**dict.fromkeys(FILES, "{}"), "argocd/params.yaml": params_cm})
    assert _matched(root, "apps/*/config.json") == []
    assert _matched(root, "apps/**/config.json") == sorted(FILES[:4])
    assert _matched(root, "apps/**/prod/config.json") == sorted(FILES[:3:2])


def test_a_files_keys_are_flattened_and_its_folder_is_the_path(tmp_path: Path) -> None:
    """``generateParamsFromGitFile``: fasttemplate's parameters are the file's keys flattened
    with dots (jeremywohl/flatten ``DotStyle``: list items by index), each as Go's ``%v``
    prints what sigs.k8s.io/yaml read (numbers are float64); then ``path`` is the file's folder,
    with ``path.basename``, ``path.filename``, their normalized forms and ``path[N]``; under
    goTemplate, ``path.path`` and ``path.segments`` (flattened as the selector sees them)
    instead of ``path`` and ``path[N]``."""
    text = (
        "cluster: {name: Dev-1, server: 'https://dev-1.acme.io'}\n"
        "hosts: [a.acme.io, b.acme.io]\n"
        "port: 8080\nlimit: 1000000\nratio: 0.5\nsmall: 0.00001\nenabled: true\nowner: null\n"
        "empty: {}\n"
    )
    root = _repo(tmp_path, {"clusters/Dev_1/config.yaml": text})
    (params,) = file_params(read_repo(root), "clusters/Dev_1/config.yaml")
    assert params == {
        "cluster.name": "Dev-1",
        "cluster.server": "https://dev-1.acme.io",
        "hosts.0": "a.acme.io",
        "hosts.1": "b.acme.io",
        "port": "8080",
        "limit": "1e+06",
        "ratio": "0.5",
        "small": "1e-05",
        "enabled": "true",
        "owner": "<nil>",
        "path": "clusters/Dev_1",
        "path.basename": "Dev_1",
        "path.basenameNormalized": "dev-1",
        "path.filename": "config.yaml",
        "path.filenameNormalized": "config.yaml",
        "path[0]": "clusters",
        "path[1]": "Dev_1",
    }
    (go,) = file_params(read_repo(root), "clusters/Dev_1/config.yaml", go=True)
    fast_only = ("path", "path[0]", "path[1]")
    assert go == {k: v for k, v in params.items() if k not in fast_only} | {
        "path.path": "clusters/Dev_1",
        "path.segments.0": "clusters",
        "path.segments.1": "Dev_1",
    }


def test_a_list_file_makes_a_set_per_item_and_the_prefix_names_the_path(tmp_path: Path) -> None:
    """A file holding a list gives a parameter set per object; an empty file one set of its
    path alone; ``pathParamPrefix`` puts the path parameters under ``PREFIX.path``."""
    root = _repo(
        tmp_path, {"teams/a/apps.json": '[{"name": "api"}, {"name": "web"}]', "e.json": ""}
    )
    repo = read_repo(root)
    sets = file_params(repo, "teams/a/apps.json", "team")
    assert [(p["name"], p["team.path"], p["team.path.basename"]) for p in sets] == [
        ("api", "teams/a", "a"),
        ("web", "teams/a", "a"),
    ]
    assert file_params(repo, "e.json") == [path_params(".", "e.json")]


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ('{"name": "a",\n "x": 1\n', 3, "did not find expected ',' or '}'"),
        ("just text\n", 1, "neither an object nor a list of objects"),
        ("- 1\n- 2\n", 1, "neither an object nor a list of objects"),
    ],
)
def test_a_file_that_is_no_parameters_is_said_where_it_is(
    tmp_path: Path, text: str, line: int, reason: str
) -> None:
    """Argo CD fails the generator on a file sigs.k8s.io/yaml reads as neither an object nor
    a list of objects ("unable to parse file"): import says so at the file."""
    root = _repo(tmp_path, {"bad.json": text})
    with pytest.raises(NotParams) as raised:
        file_params(read_repo(root), "bad.json")
    assert (raised.value.file, raised.value.line, raised.value.reason) == ("bad.json", line, reason)


@pytest.mark.parametrize(
    ("value", "text"),
    [(0, "0"), (-3, "-3"), (123456, "123456"), (1234567, "1.234567e+06"), (0.0001, "0.0001")],
)
def test_numbers_print_as_go_prints_a_float64(value: float, text: str) -> None:
    """strconv.FormatFloat(v, 'g', -1, 64), which ``fmt.Sprintf("%v")`` uses."""
    assert go_text(value) == text


def test_a_generators_own_template_is_merged_over_the_sets() -> None:
    """applicationset ``mergeGeneratorTemplate``: mergo.Merge fills the generator template's
    empty fields from the set's (argocd-autopilot's ``config_dir.json`` generator adds a
    ``directory`` source this way)."""
    template = {
        "metadata": {"name": "{{appName}}", "labels": {"a": "1"}},
        "spec": {"project": "p", "source": {"repoURL": "r", "path": "{{srcPath}}"}},
    }
    generator = {
        "git": {
            "files": [{"path": "apps/**/config_dir.json"}],
            "template": {
                "metadata": {"labels": {"b": "2"}},
                "spec": {"project": "", "source": {"directory": {"recurse": True}, "repoURL": ""}},
            },
        }
    }
    assert template_of(generator, template) == {
        "metadata": {"name": "{{appName}}", "labels": {"a": "1", "b": "2"}},
        "spec": {
            "project": "p",
            "source": {"repoURL": "r", "path": "{{srcPath}}", "directory": {"recurse": True}},
        },
    }
    assert template_of({"list": {"elements": []}}, template) == template
