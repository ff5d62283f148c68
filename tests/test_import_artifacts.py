"""The artifacts of a Flux ArtifactGenerator as source-watcher builds them
(``internal/builder/builder.go``), and the repository folder a path in one is a copy of: each
case names the function whose behaviour it models; then the flux-artifacts golden repository
changed one construct at a time."""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest

from fleetgen.importer.flux.artifacts import Artifact, Copy, Unmapped, build, folder_of
from tests.helpers import run_fleetgen

REPO = frozenset(
    {
        "README.md",
        "apps/base/web/kustomization.yaml",
        "apps/base/web/deployment.yaml",
        "apps/base/web/README.md",
        "apps/base/web/tests/smoke.yaml",
        "apps/prod/kustomization.yaml",
        "apps/prod/values.yaml",
        "apps/dev/kustomization.yaml",
        "charts/web-1.0.0.tgz",
        "config/prod.yaml",
    }
)


def _built(*copies: Mapping[str, object], sources: Mapping[str, str] | None = None) -> Artifact:
    """The artifact of ``copies`` from the repository (alias ``repo``) and ``sources`` (what
    each other source is)."""
    return build([Copy.of(c) for c in copies], {"repo": REPO, **(sources or {})})


def _files(artifact: Artifact) -> dict[str, str]:
    return dict(sorted(artifact.files.items()))


def test_a_folder_is_copied_as_a_subfolder_of_the_destination() -> None:
    """``applySingleDirectoryCopy``: ``@repo/apps/prod/`` (no glob) is ``cp -r apps/prod
    dest``, the folder's name kept below the destination."""
    artifact = _built({"from": "@repo/apps/prod/", "to": "@artifact/envs/"})
    assert _files(artifact) == {
        "envs/prod/kustomization.yaml": "apps/prod/kustomization.yaml",
        "envs/prod/values.yaml": "apps/prod/values.yaml",
    }


def test_a_double_star_copies_a_folders_contents() -> None:
    """``calculateGlobDestination``: ``dir/**`` drops ``dir/``; what Go's ``fs.Glob`` matches
    of ``**`` (one level, as ``*``: files and folders) is copied whole (``copyDirWithRoots``)."""
    artifact = _built({"from": "@repo/apps/base/**", "to": "@artifact/base/"})
    assert _files(artifact) == {
        "base/web/README.md": "apps/base/web/README.md",
        "base/web/deployment.yaml": "apps/base/web/deployment.yaml",
        "base/web/kustomization.yaml": "apps/base/web/kustomization.yaml",
        "base/web/tests/smoke.yaml": "apps/base/web/tests/smoke.yaml",
    }


def test_a_star_matches_one_level_and_keeps_the_whole_path() -> None:
    """``fs.Glob`` (``path.Match``: ``*`` stops at ``/``) and ``calculateGlobDestination``
    ("other patterns preserve the full match path")."""
    artifact = _built({"from": "@repo/apps/*/kustomization.yaml", "to": "@artifact/"})
    assert _files(artifact) == {
        "apps/dev/kustomization.yaml": "apps/dev/kustomization.yaml",
        "apps/prod/kustomization.yaml": "apps/prod/kustomization.yaml",
    }


@pytest.mark.parametrize(
    ("to", "before", "expected"),
    [
        ("@artifact/values/", [], "values/prod.yaml"),
        ("@artifact/values.yaml", [], "values.yaml"),
        ("@artifact/prod", [{"from": "@repo/apps/prod/", "to": "@artifact/"}], "prod/prod.yaml"),
    ],
    ids=["into-a-folder", "renamed", "into-a-folder-there"],
)
def test_a_file_goes_into_a_folder_or_to_its_new_name(
    to: str, before: list[dict[str, str]], expected: str
) -> None:
    """``applySingleFileCopy``: into ``dest/`` under its own name, to ``dest`` as its name, but
    into ``dest`` when a folder of that name is there already."""
    artifact = _built(*before, {"from": "@repo/config/prod.yaml", "to": to})
    assert artifact.files[expected] == "config/prod.yaml"


def test_a_later_copy_overwrites_an_earlier_one() -> None:
    """``applyCopyOperations``: in order, a later operation's file replacing one there."""
    artifact = _built(
        {"from": "@repo/apps/prod/**", "to": "@artifact/"},
        {"from": "@repo/config/prod.yaml", "to": "@artifact/values.yaml"},
    )
    assert artifact.files["values.yaml"] == "config/prod.yaml"


@pytest.mark.parametrize(
    ("exclude", "left"),
    [
        (["*.md"], {"deployment.yaml", "kustomization.yaml", "tests/smoke.yaml"}),
        (["web/tests"], {"README.md", "deployment.yaml", "kustomization.yaml"}),
        (["apps/base/**/tests/**"], {"README.md", "deployment.yaml", "kustomization.yaml"}),
        (["{README.md,deployment.yaml}"], {"kustomization.yaml", "tests/smoke.yaml"}),
        (["web/[!k]*"], {"kustomization.yaml"}),
    ],
    ids=["name-at-any-depth", "folder-from-the-selection", "from-the-root", "braces", "class"],
)
def test_exclude_filters_what_is_copied(exclude: list[str], left: set[str]) -> None:
    """``shouldExcludePath``/``shouldExclude`` (doublestar ``Match``) against the path from the
    source's root and from ``sourceSelectionRoot`` (the literal part of ``from``), a pattern
    without ``/`` against each name too; an excluded folder skipped whole (``copyDirWithRoots``
    returns ``fs.SkipDir``)."""
    artifact = _built({"from": "@repo/apps/base/**", "to": "@artifact/", "exclude": exclude})
    assert {path.removeprefix("web/") for path in artifact.files} == left


def test_merge_makes_a_file_no_folder_holds_but_within_a_folder_copy() -> None:
    """``shouldMergeFile``: a matched file merged into one already there (``Merge``) is made
    of both; a folder's files are copied, never merged (``copyDirWithRoots``)."""
    artifact = _built(
        {"from": "@repo/apps/prod/**", "to": "@artifact/"},
        {"from": "@repo/config/prod.yaml", "to": "@artifact/values.yaml", "strategy": "Merge"},
        {"from": "@repo/config/prod.yaml", "to": "@artifact/other.yaml", "strategy": "Merge"},
    )
    assert "values.yaml" in artifact.made
    assert artifact.files["other.yaml"] == "config/prod.yaml"  # nothing there: copied
    assert _built({"from": "@repo/apps/", "to": "@artifact/", "strategy": "Merge"}).made == {}


def test_extract_and_another_source_make_content_no_folder_holds() -> None:
    """``applyCopyOperation`` with ``Extract`` (``extractTarball`` of each ``isTarball``
    match), and a source other than the repository."""
    extracted = _built(
        {"from": "@repo/charts/*.tgz", "to": "@artifact/web/", "strategy": "Extract"}
    )
    assert list(extracted.made) == ["web"]
    other = _built({"from": "@oci/**", "to": "@artifact/"}, sources={"oci": "OCIRepository 'x'"})
    with pytest.raises(Unmapped, match="OCIRepository 'x', in no folder"):
        folder_of(other, ".", REPO)


@pytest.mark.parametrize(
    ("copy", "why"),
    [
        ({"from": "@repo/nothing/**", "to": "@artifact/"}, "no file matches"),
        ({"from": "@repo/apps/**", "to": "@artifact/", "exclude": ["*"]}, "every file matching"),
        ({"from": "@repo/nothing/", "to": "@artifact/"}, "does not exist"),
        ({"from": "@git/apps/", "to": "@artifact/"}, "names no source alias"),
        ({"from": "@repo/README.md", "to": "@artifact/../x"}, "leaves the artifact"),
        ({"from": "@repo/apps/", "to": "@artifact/", "exclude": ["[x"]}, "is not a glob"),
        ({"from": "repo/apps/", "to": "@artifact/"}, "is not '@alias/pattern'"),
    ],
    ids=["no-match", "all-excluded", "missing", "alias", "outside", "bad-exclude", "from"],
)
def test_what_source_watcher_fails_to_build_is_unmapped(copy: dict[str, object], why: str) -> None:
    """``applyCopyOperation``'s errors (no match, all excluded, a missing source, an unknown
    alias, an invalid exclude pattern; ``os.Root`` refusing to leave the artifact) and
    ``parseCopySource``'s."""
    with pytest.raises(Unmapped, match=why):
        _built(copy)


def test_a_path_in_an_artifact_of_one_folder_is_its_folder() -> None:
    """The shape of flux2-kustomize-helm-example: ``apps/base/**`` to ``base/`` and
    ``apps/prod/**`` to ``prod/`` keep the repository's layout below ``apps``, so ``./prod``
    (kustomize-controller joins ``spec.path`` to the artifact's root) is ``apps/prod`` and its
    ``../base/web`` resolves alike."""
    artifact = _built(
        {"from": "@repo/apps/base/**", "to": "@artifact/base/", "exclude": ["*.md"]},
        {"from": "@repo/apps/prod/**", "to": "@artifact/prod/"},
    )
    assert folder_of(artifact, "prod", REPO) == "apps/prod"
    assert folder_of(artifact, "base/web", REPO) == "apps/base/web"
    assert folder_of(_built({"from": "@repo/apps/", "to": "@artifact/"}), "apps", REPO) == "apps"


@pytest.mark.parametrize(
    ("copies", "path", "why"),
    [
        (
            [
                {"from": "@repo/apps/prod/**", "to": "@artifact/"},
                {"from": "@repo/apps/base/**", "to": "@artifact/base/"},
            ],
            ".",
            "the copies change the layout",
        ),
        (
            [
                {"from": "@repo/apps/prod/**", "to": "@artifact/prod/"},
                {"from": "@repo/config/prod.yaml", "to": "@artifact/prod/values.yaml"},
            ],
            "prod",
            "'config/prod.yaml' moved",
        ),
        ([{"from": "@repo/apps/prod/**", "to": "@artifact/prod/"}], "dev", "no folder 'dev'"),
        (
            [{"from": "@repo/apps/base/**", "to": "@artifact/", "exclude": ["tests"]}],
            "web",
            "leaves out 'apps/base/web/tests/smoke.yaml'",
        ),
    ],
    ids=["two-offsets", "renamed", "missing", "excluded-yaml"],
)
def test_a_path_is_no_folder_where_the_copies_change_it(
    copies: list[dict[str, object]], path: str, why: str
) -> None:
    """Where the artifact is not the repository at one offset, relative paths (``../base``)
    would resolve otherwise than in the repository; a YAML file excluded is one kustomize-
    controller would not apply (or could not build)."""
    with pytest.raises(Unmapped, match=why):
        folder_of(_built(*copies), path, REPO)


def _imported(tmp_path: Path, edits: dict[str, tuple[str, str]], files: dict[str, str]) -> str:
    """The findings of ``import --dry-run`` of a copy of the flux-artifacts golden repository,
    each file of ``edits`` changed by its (old, new) replacement, ``files`` added."""
    repo = tmp_path / "flux-artifacts"
    shutil.copytree(Path(__file__).parent / "imports" / "flux-artifacts" / "repo", repo)
    for path, text in files.items():
        (repo / path).write_text(text)
    for path, (old, new) in edits.items():
        text = (repo / path).read_text()
        assert old in text, (path, old)
        (repo / path).write_text(text.replace(old, new))
    ran = run_fleetgen(repo, "import", "--dry-run")
    assert ran.returncode == 1, ran.stderr
    assert all(re.match(r"[^:]+(:\d+)?: .+ — .+", line) for line in ran.stderr.splitlines())
    return ran.stderr


def test_a_copy_that_moves_a_folder_is_a_finding_at_the_kustomization(tmp_path: Path) -> None:
    """``applyCopyOperation`` puts ``services/dev/`` at ``overlay/``: the overlay's
    ``../base/shop`` resolves in the artifact, not in the repository's ``services/dev``."""
    found = _imported(
        tmp_path,
        {
            "clusters/dev/artifacts.yaml": ('to: "@artifact/dev/"', 'to: "@artifact/overlay/"'),
            "clusters/dev/services.yaml": ("path: ./dev", "path: ./overlay"),
        },
        {},
    )
    assert (
        "clusters/dev/services.yaml:12: Kustomization 'shop': ExternalArtifact 'services' is no "
        "folder of the repository ('overlay/kustomization.yaml' is the repository's "
        "'services/dev/kustomization.yaml' moved)" in found
    )
    assert "shop-dev" not in found


def test_a_file_the_copies_exclude_is_missed_by_the_faithfulness_check(tmp_path: Path) -> None:
    """The faithfulness check builds the original from the artifact (kustomize-controller's
    ``getSource`` reads the ExternalArtifact, ``securejoin.SecureJoin`` its ``path``): an
    ``exclude`` leaving out a file the kustomization reads fails there, at the app."""
    generator = "clusters/dev/artifacts.yaml"
    found = _imported(
        tmp_path,
        {
            generator: ('exclude: ["*.md"]', 'exclude: ["*.md", "*.env"]'),
            "services/base/shop/kustomization.yaml": (
                "  - service.yaml\n",
                "  - service.yaml\nconfigMapGenerator:\n  - name: shop\n    envs: [shop.env]\n",
            ),
        },
        {"services/base/shop/shop.env": "GREETING=hello\n"},
    )
    assert (
        "clusters/dev/services.yaml:1: shop-dev on 'dev': kustomize cannot build what the "
        "original deploys (lstat artifact/base/shop/shop.env: no such file or directory)" in found
    )


def test_another_source_and_unread_fields_are_findings(tmp_path: Path) -> None:
    """A generator's source other than the repository's GitRepository (the API's
    ``SourceReference`` kinds: its artifacts copying from it only are not mapped), its
    ``commonMetadata``, and an ExternalArtifact no generator here makes."""
    found = _imported(
        tmp_path,
        {
            "clusters/prod/artifacts.yaml": (
                "      name: flux-system\n",
                "      name: flux-system\n    - alias: charts\n      kind: OCIRepository\n"
                "      name: charts\n  commonMetadata:\n    labels: {team: shop}\n",
            ),
            "clusters/prod/platform.yaml": ("name: platform", "name: elsewhere"),
        },
        {},
    )
    assert (
        "clusters/prod/artifacts.yaml:11: ArtifactGenerator 'shop': source 'charts' is "
        "OCIRepository 'charts', not the repository's GitRepository" in found
    )
    assert "clusters/prod/artifacts.yaml:15: ArtifactGenerator 'shop': spec.commonMetadata" in found
    assert "ExternalArtifact 'elsewhere' is no folder of the repository (no Artifact" in found


def test_an_artifact_source_watcher_cannot_build_is_said_at_its_generator(
    tmp_path: Path,
) -> None:
    """``applyCopyOperation`` fails on a copy from an alias no source has: the generator makes
    no ExternalArtifact, which is said at it whether or not an object here reads the artifact."""
    found = _imported(
        tmp_path,
        {"clusters/dev/artifacts.yaml": ('from: "@fleet/charts/status/**"', 'from: "@x/charts"')},
        {},
    )
    assert (
        "clusters/dev/artifacts.yaml:25: ArtifactGenerator 'shop': source-watcher cannot build "
        "its artifact 'status-chart' (its copy from '@x' names no source alias) — it makes no "
        "ExternalArtifact: fix the generator, rerun import" in found
    )
