"""``fleetgen promote``: versions moved between environments as a byte-preserving, validated edit
of fleet.py, in real Git repositories (issue 27)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import git
import pytest

from fleetgen.emit.versions import Version
from fleetgen.errors import SpecError
from fleetgen.pipeline import api
from fleetgen.scaffold import edit
from fleetgen.scaffold.promote import Step, _written
from tests.helpers import Ran, run_fleetgen, tree
from tests.scaffold.test_add import added_lines

ROOT = Path(__file__).resolve().parents[2]
DIGEST = "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
CERT_MANAGER_PER_ENV = 'per_env={"prod": Overrides(values={'
API_SERVICE_LABELS = 'per_label={DR: Overrides(replicas={"api-service": 1}'


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def _plant(repo: Path, *edits: tuple[str, str]) -> None:
    """fleet.py edited by (old, new) replacements, rebuilt and committed."""
    spec = repo / "fleet.py"
    text = spec.read_text()
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    spec.write_text(text)
    assert run_fleetgen(repo, "build").returncode == 0
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "planted")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The example fleet with its output/, committed to a new Git repository."""
    for name in ("fleet.py", "apps", "charts", "output"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "example")
    return tmp_path


def promote(repo: Path, *args: str) -> Ran:
    return run_fleetgen(repo, "promote", *args)


def versions_of(repo: Path, app: str) -> dict[str, list[tuple[str | None, str | None]]]:
    """env -> (version, digest) each runs of ``app``'s one image or chart."""
    done = run_fleetgen(repo, "versions", app, "--format", "json")
    (row,) = json.loads(done.stdout)["rows"]
    return {
        cell["environment"]: [(v["version"], v["digest"]) for v in cell["versions"]]
        for cell in row["environments"]
    }


def test_promote_one_app_edits_one_line_rebuilds_and_is_idempotent(repo: Path) -> None:
    before = (repo / "fleet.py").read_text()
    done = promote(repo, "order-service", "--from", "dev", "--to", "staging")
    assert done.returncode == 0, done.stderr
    after = (repo / "fleet.py").read_text()
    assert added_lines(before, after) == (
        [],
        [
            '                "staging": Overrides(images=[Image(name="order-service", '
            'tag="1.9.0-rc.1")]),',
        ],
    )
    assert done.stdout.startswith("Promote order-service from dev to staging\n")
    assert "  image order-service: 1.8.2 → 1.9.0-rc.1\n" in done.stdout
    assert "  reaches, in rollout order: staging\n" in done.stdout
    assert "# blast radius: 1 cluster, 1 environment, 1 app, 1 project" in done.stdout
    overlay = (repo / "output/overlays/order-service/staging/kustomization.yaml").read_text()
    assert "newTag: 1.9.0-rc.1" in overlay
    assert api.check(repo / "fleet.py").findings == []
    assert versions_of(repo, "order-service")["staging"] == [("1.9.0-rc.1", None)]
    assert _git(repo, "status", "--short", "--", "fleet.py") != ""  # written, not committed
    assert len(_git(repo, "log", "--oneline").splitlines()) == 1

    written = tree(repo)
    again = promote(repo, "order-service", "--from", "dev", "--to", "staging")
    assert again.returncode == 0, again.stderr
    assert again.stdout == (
        "Nothing to promote from dev to staging\n\nalready promoted: order-service\n"
    )
    assert tree(repo) == written


def test_promote_several_apps_to_a_rollout_in_canary_order(repo: Path) -> None:
    assert promote(repo, "order-service", "--from", "dev", "--to", "staging").returncode == 0
    before = (repo / "fleet.py").read_text()
    done = promote(repo, "payment-service", "order-service", "--from", "staging", "--to", "prod")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Promote order-service, payment-service from staging to prod\n")
    assert (
        f"  image payment-service: {DIGEST[:19]}… → 2.4.1 (order unknown: not both exact semver "
        "versions)\n"
    ) in done.stdout
    assert "  image order-service: 1.8.2 → 1.9.0-rc.1\n" in done.stdout
    reaches = "  reaches, in rollout order: prod-east (wave 1), prod-west (wave 2), dr (wave 3)\n"
    assert done.stdout.count(reaches) == 2
    assert "! production: 3 cluster(s) in prod: dr, prod-east, prod-west" in done.stdout
    removed, added = added_lines(before, (repo / "fleet.py").read_text())
    assert removed == [
        '                "prod": Overrides(config={"order-config": {"LOG_LEVEL": "warn"}}),',
        f'                              digest="{DIGEST}")],',
    ]
    assert added == [
        '                "prod": Overrides(config={"order-config": {"LOG_LEVEL": "warn"}}, '
        'images=[Image(name="order-service", tag="1.9.0-rc.1")]),',
        '                              tag="2.4.1")],',
    ]
    assert versions_of(repo, "payment-service")["prod"] == [("2.4.1", None)]
    assert api.check(repo / "fleet.py").findings == []


def test_promote_all_promotes_what_differs_and_names_the_rest(repo: Path) -> None:
    done = promote(repo, "--all", "--from", "dev", "--to", "staging")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Promote order-service from dev to staging\n")
    # status-page's chart is kept in the repository: one version wherever it runs
    assert "already promoted: api-service, cert-manager, status-page\n" in done.stdout
    assert "cluster-baseline" not in done.stdout  # runs no versioned image or chart


@pytest.mark.parametrize(
    ("version", "shown"),
    [
        ("v1.17.0", "v1.17.0"),
        (
            ">=1.16.0 <1.18.0",
            ">=1.16.0 <1.18.0 (range) (order unknown: not both exact semver versions)",
        ),
    ],
    ids=["exact", "range"],
)
def test_promote_a_chart_app_copies_its_chart_version_as_written(
    repo: Path, version: str, shown: str
) -> None:
    """An exact version or a range (which each engine resolves on its own) is written into the
    target's layer as the text it is; the summary marks a range."""
    _plant(
        repo,
        (
            CERT_MANAGER_PER_ENV,
            f'per_env={{"staging": Overrides(chart_version="{version}"),\n'
            '                     "prod": Overrides(values={',
        ),
    )
    before = (repo / "fleet.py").read_text()
    done = promote(repo, "cert-manager", "--from", "staging", "--to", "prod")
    assert done.returncode == 0, done.stderr
    assert f"  chart cert-manager: v1.16.2 → {shown}\n" in done.stdout
    removed, added = added_lines(before, (repo / "fleet.py").read_text())
    assert (removed, added) == (
        ["            })},"],
        [f'            }}, chart_version="{version}")}},'],
    )
    assert versions_of(repo, "cert-manager")["prod"] == [(version, None)]
    application_set = (repo / "output/argocd/applicationsets/cert-manager.yaml").read_text()
    assert f"targetRevision: {version}" in application_set.replace("'", "")


PROD_WEST_PIN = (
    API_SERVICE_LABELS,
    'per_cluster={"prod-west": Overrides(images=[Image(name="api-service", tag="3.1.9")])},\n'
    f"            {API_SERVICE_LABELS}",
)


def test_disagreeing_source_clusters_are_refused_all_at_once_and_nothing_is_written(
    repo: Path,
) -> None:
    _plant(
        repo,
        PROD_WEST_PIN,
        (
            '"prod": Overrides(config={"order-config": {"LOG_LEVEL": "warn"}}),',
            '"prod": Overrides(config={"order-config": {"LOG_LEVEL": "warn"}}),\n'
            "            }, per_cluster={\n"
            '                "dr": Overrides(images=[Image(name="order-service", tag="1.8.1")]),',
        ),
    )
    written = tree(repo)
    done = promote(repo, "api-service", "order-service", "--from", "prod", "--to", "staging")
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    text = (repo / "fleet.py").read_text().splitlines()
    line_of = {
        app: next(i for i, t in enumerate(text, 1) if f'name="{app}"' in t) - 1
        for app in ("api-service", "order-service")
    }
    assert lines == [
        f"fleet.py:{line_of['order-service']}: app 'order-service': prod's clusters run "
        "different versions of image 'order-service' (1.8.2 (prod-east), 1.8.2 (prod-west), "
        "1.8.1 (dr)); pick the one to promote with --cluster NAME",
        f"fleet.py:{line_of['api-service']}: app 'api-service': prod's clusters run different "
        "versions of image 'api-service' (3.2.0 (prod-east), 3.1.9 (prod-west), 3.2.0 (dr)); "
        "pick the one to promote with --cluster NAME",
        "2 problem(s); nothing was written",
    ]
    assert tree(repo) == written


def test_cluster_picks_the_source_where_clusters_disagree(repo: Path) -> None:
    _plant(repo, PROD_WEST_PIN)
    done = promote(
        repo,
        *("api-service", "--from", "prod", "--to", "staging", "--cluster", "prod-west"),
        "--allow-downgrade",
    )
    assert done.returncode == 0, done.stderr
    assert "  image api-service: 3.2.0 → 3.1.9 (downgrade)\n" in done.stdout
    assert versions_of(repo, "api-service")["staging"] == [("3.1.9", None)]
    # the other way, prod-west's own layer keeps its version: the summary says so
    done = promote(repo, "api-service", "--from", "dev", "--to", "prod")
    assert done.returncode == 0, done.stderr
    assert "  image api-service: 3.2.0, 3.1.9 → 3.2.0\n" in done.stdout
    assert "  reaches, in rollout order: prod-east (wave 1), dr (wave 3)\n" in done.stdout
    assert "  not reached: prod-west (a per_label or per_cluster layer" in done.stdout
    again = promote(repo, "api-service", "--from", "dev", "--to", "prod")
    assert again.stdout == "Nothing to promote from dev to prod\n\nalready promoted: api-service\n"


def test_dry_run_prints_the_edit_and_writes_nothing(repo: Path) -> None:
    written = tree(repo)
    done = promote(repo, "payment-service", "--from", "staging", "--to", "prod", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert f'-                              digest="{DIGEST}")],' in done.stdout
    assert '+                              tag="2.4.1")],' in done.stdout
    assert "output: 2 file(s) would change" in done.stdout
    assert tree(repo) == written


def test_branch_commits_the_promotion_once_and_its_tree_builds_clean(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    head = _git(repo, "rev-parse", "HEAD").strip()
    done = promote(repo, "payment-service", "--from", "staging", "--to", "prod", "--branch", "p")
    assert done.returncode == 0, done.stderr
    assert _git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "p"
    assert _git(repo, "rev-list", f"{head}..p").split() == [_git(repo, "rev-parse", "p").strip()]
    assert _git(repo, "status", "--porcelain") == ""
    message = git.Repo(repo).head.commit.message
    assert message.startswith("Promote payment-service from staging to prod\n\n")
    assert "image payment-service" in message and "# blast radius: 3 clusters" in message
    assert f"committed {_git(repo, 'rev-parse', 'p')[:12]} on branch p" in done.stdout
    clone = tmp_path_factory.mktemp("clone") / "fleet"
    git.Repo.clone_from(str(repo), str(clone), branch="p")
    assert run_fleetgen(clone, "build", "--check").returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--branch", "main"), "--branch 'main': the branch exists; pick another name"),
        (("--branch", "a..b"), "--branch 'a..b': not a valid branch name"),
        (("--branch", "p", "--dry-run"), "--branch commits the promotion: not with --dry-run"),
    ],
)
def test_branch_is_refused_before_anything_is_written(
    repo: Path, args: tuple[str, ...], message: str
) -> None:
    written = tree(repo)
    done = promote(repo, "payment-service", "--from", "staging", "--to", "prod", *args)
    assert (done.returncode, done.stderr) == (2, f"{message}; nothing was written\n")
    assert tree(repo) == written


def test_branch_refuses_uncommitted_changes_to_fleet_py(repo: Path) -> None:
    spec = repo / "fleet.py"
    spec.write_text(spec.read_text() + "# a note\n")
    done = promote(repo, "payment-service", "--from", "staging", "--to", "prod", "--branch", "p")
    assert done.returncode == 2
    assert done.stderr.startswith("--branch: uncommitted changes the commit would take along")
    assert spec.read_text().endswith("# a note\n") and "p" not in git.Repo(repo).heads


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nope", "--from", "dev", "--to", "staging"), "no such app: nope (known: "),
        (
            ("order-service", "--from", "qa", "--to", "staging"),
            "--from 'qa': no such environment (known: dev, staging, prod)",
        ),
        (("--from", "dev", "--to", "staging"), "name the apps to promote, or give --all"),
        (("order-service", "--from", "dev", "--to", "dev"), "--from and --to name one"),
        (
            ("payment-service", "--from", "dev", "--to", "staging"),
            "not placed in both dev and staging: payment-service (runs in: prod, staging)",
        ),
        (
            ("--all", "--from", "prod", "--to", "staging", "--cluster", "dev"),
            "--cluster 'dev': no cluster of prod",
        ),
    ],
)
def test_bad_requests_get_one_message(repo: Path, args: tuple[str, ...], message: str) -> None:
    done = promote(repo, *args)
    assert done.returncode == 2
    assert done.stderr.startswith(message), done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_a_layer_fleetgen_cannot_edit_statically_is_located(repo: Path) -> None:
    _plant(
        repo,
        (
            'per_env={"staging": Overrides(replicas={"api-service": 2}),\n'
            '                     "prod": Overrides(replicas={"api-service": 4})},',
            'per_env=dict(staging=Overrides(replicas={"api-service": 2}),\n'
            '                         prod=Overrides(replicas={"api-service": 4}),\n'
            '                         dev=Overrides(images=[Image(name="api-service", '
            'tag="3.3.0")])),',
        ),
    )
    written = tree(repo)
    done = promote(repo, "api-service", "--from", "dev", "--to", "staging")
    assert done.returncode == 2
    line = next(
        i
        for i, text in enumerate((repo / "fleet.py").read_text().splitlines(), 1)
        if text.lstrip().startswith("per_env=dict(")
    )
    assert done.stderr.splitlines() == [
        f"fleet.py:{line}: app 'api-service' sets per_env= to something other than a dict "
        'literal; set images=[Image(name="api-service", tag="3.3.0")] in its '
        "per_env['staging'] by hand",
        "1 problem(s); nothing was written",
    ]
    assert tree(repo) == written


ODD = """\
# Oddly formatted: every byte the edit does not touch must survive.
from fleetgen import App, Fleet  # no Image, no Overrides yet

fleet = Fleet(name="odd", repo="https://git.example.com/odd.git",
    apps=[App(name="web", project="p", namespace="web", path="apps/web"),   # a comment
          App(name="api",project="p",namespace="api",path="apps/api",
              per_env={'prod': Overrides(replicas={"api": 3},
                                         images=[Image(name="api", tag="1.0", digest="DIGEST")])})])
""".replace("DIGEST", DIGEST)


def test_edits_create_what_is_missing_and_keep_every_other_byte() -> None:
    pinned = edit.pin_image(
        ODD,
        "web",
        "per_env",
        "prod",
        "web",
        {"tag": '"2.0"', "digest": None},
        'Image(name="web", tag="2.0")',
    )
    assert pinned == ODD.replace(
        "from fleetgen import App, Fleet  #", "from fleetgen import App, Fleet, Image, Overrides  #"
    ).replace(
        'path="apps/web"),',
        'path="apps/web", per_env={"prod": Overrides(images=[Image(name="web", tag="2.0")])}),',
    )
    retagged = edit.pin_image(
        ODD, "api", "per_env", "prod", "api", {"tag": '"1.1"', "digest": None}, "unused"
    )
    assert retagged == ODD.replace(f'tag="1.0", digest="{DIGEST}"', 'tag="1.1"')
    digested = edit.pin_image(
        ODD,
        "api",
        "per_env",
        "prod",
        "api",
        {"tag": None, "digest": '"sha256:' + "b" * 64 + '"'},
        "unused",
    )
    assert digested == ODD.replace(f'tag="1.0", digest="{DIGEST}"', f'digest="sha256:{"b" * 64}"')
    staged = edit.set_layer_keyword(ODD, "api", "per_env", "staging", "chart_version", '"1.2.3"')
    assert staged == ODD.replace(
        '")])})])', '")]), "staging": Overrides(chart_version="1.2.3")})])'
    ).replace("App, Fleet  #", "App, Fleet, Overrides  #")
    assert edit.set_layer_keyword(
        staged, "api", "per_env", "staging", "chart_version", '"1.2.4"'
    ) == staged.replace('"1.2.3"', '"1.2.4"')


def test_outside_a_git_repository_the_blast_radius_is_not_computed(tmp_path: Path) -> None:
    for name in ("fleet.py", "apps", "charts", "output"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    done = promote(tmp_path, "order-service", "--from", "dev", "--to", "staging")
    assert done.returncode == 0, done.stderr
    assert "\n# blast radius: not computed (" in done.stdout
    assert "is not inside a Git repository)\n" in done.stdout


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "per_env={'prod': ",
            "per_env={PROD: ",
            "app 'api': per_env= has keys fleetgen cannot read statically; set "
            'images=[Image(name="api", tag="2.0")] in its per_env[\'prod\'] by hand',
        ),
        (
            'images=[Image(name="api", ',
            "images=[*BASE, Image(name=API, ",
            "app 'api': per_env['prod'] has images= fleetgen cannot name statically; set "
            'Image(name="api", tag="2.0") in it by hand',
        ),
    ],
)
def test_what_could_hide_the_entry_is_not_added_beside(old: str, new: str, message: str) -> None:
    """A new entry beside a key or image written as a name could replace or shadow it."""
    source = ODD.replace(old, new)
    with pytest.raises(edit.EditError) as raised:
        edit.pin_image(
            source,
            "api",
            "per_env",
            "prod",
            "api",
            {"tag": '"2.0"', "digest": None},
            'Image(name="api", tag="2.0")',
        )
    assert (str(raised.value), raised.value.line) == (message, 7 if "PROD" in new else 8)


def test_branch_refuses_an_output_folder_outside_the_repository(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "output"
    written = tree(repo)
    done = promote(
        repo,
        "payment-service",
        "--from",
        "staging",
        "--to",
        "prod",
        "--branch",
        "p",
        "--out",
        str(elsewhere),
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"--branch: {elsewhere} is outside the repository at ")
    assert len(done.stderr.splitlines()) == 1
    assert tree(repo) == written and not elsewhere.exists()


def test_a_commit_that_fails_after_the_write_says_what_was_written(repo: Path) -> None:
    (repo / ".git/index.lock").touch()  # another git process holds the index
    done = promote(repo, "payment-service", "--from", "staging", "--to", "prod", "--branch", "p")
    assert done.returncode == 2
    assert done.stderr.startswith("--branch: git failed: fatal: Unable to create ")
    assert done.stderr.endswith("; fleet.py and output/ are written, not committed\n")
    assert 'tag="2.4.1"' in (repo / "fleet.py").read_text()


TWO = """\
from fleetgen import App, Fleet, Image, Overrides

fleet = Fleet(name="two", repo="https://git.example.com/two.git",
    apps=[App(name="a", project="p", namespace="a", path="apps/a",
              per_env={
                  "dev": Overrides(images=[Image(name="a", tag="2.0")]),
              }),
          App(name="b", project="p", namespace="b", path="apps/b",
              per_env=dict(dev=Overrides(images=[Image(name="b", tag="2.0")])))])
"""


def test_a_layer_that_cannot_be_edited_is_located_where_the_user_wrote_it() -> None:
    """The edit of an earlier app adds a line above the one that cannot be edited; its problem
    still names its line in fleet.py as it is (`promote._located`)."""
    steps = [Step(app, "image", app, (), Version(tag="2.0")) for app in ("a", "b")]
    with pytest.raises(SpecError) as refused:
        _written(Path("fleet.py"), TWO, "staging", steps)
    (problem,) = refused.value.problems
    assert "app 'b' sets per_env= to something other than a dict literal" in problem.message
    assert problem.line == 9 and "per_env=dict(" in TWO.splitlines()[8]
    edited = edit.pin_image(
        TWO,
        "a",
        "per_env",
        "staging",
        "a",
        {"tag": '"2.0"', "digest": None},
        'Image(name="a", tag="2.0")',
    )
    assert edited.count("\n") > TWO.count("\n")  # the earlier edit did move the lines


def test_a_downgrade_is_refused_unless_allowed_and_marked(repo: Path) -> None:
    """dev runs order-service 1.9.0-rc.1; staging's 1.8.2 promoted back to dev is lower (both
    exact semver, compared as Masterminds ``Version.Compare`` does, a pre-release below its
    release): refused at the App, nothing written; --allow-downgrade promotes it, marked (issue
    #39)."""
    before = tree(repo)
    refused = promote(repo, "order-service", "--from", "staging", "--to", "dev")
    line = next(  # the App( call opens on the line above its name
        number
        for number, text in enumerate((repo / "fleet.py").read_text().splitlines())
        if 'name="order-service", project="orders"' in text
    )
    assert (refused.returncode, refused.stderr) == (
        2,
        f"fleet.py:{line}: app 'order-service': promoting image 'order-service' from staging to "
        "dev is a downgrade (1.9.0-rc.1 → 1.8.2); pass --allow-downgrade to promote it anyway\n"
        "1 problem(s); nothing was written\n",
    )
    assert tree(repo) == before
    done = promote(repo, "order-service", "--from", "staging", "--to", "dev", "--allow-downgrade")
    assert done.returncode == 0, done.stderr
    assert "  image order-service: 1.9.0-rc.1 → 1.8.2 (downgrade)\n" in done.stdout
    assert versions_of(repo, "order-service")["dev"] == [("1.8.2", None)]


@pytest.mark.parametrize(
    ("before", "after", "order"),
    [
        (Version("1.5.0"), Version("1.4.0"), "down"),
        (Version("v1.4.0"), Version("1.5.0"), "up"),
        (Version("1.5.0-rc.2"), Version("1.5.0-rc.10"), "up"),
        (Version("latest"), Version("1.4.0"), "unknown"),
        (Version("1.5"), Version("1.4.0"), "unknown"),  # partial: not exact semver
        (Version("1.5.0"), Version("1.4.0", DIGEST), "unknown"),
        (Version(digest=DIGEST), Version("1.4.0"), "unknown"),
        (Version(">=1.0.0", range=True), Version("0.9.0"), "unknown"),
        (Version(), Version("1.0.0"), "unknown"),  # the base's own
    ],
)
def test_the_order_of_a_step(before: Version, after: Version, order: str) -> None:
    assert Step("web", "image", "web", (before,), after).order == order


def test_a_target_on_several_versions_is_downgraded_if_any_is_higher() -> None:
    step = Step("web", "image", "web", (Version("1.2.0"), Version("2.0.0")), Version("1.5.0"))
    assert step.order == "down"
    step = Step("web", "image", "web", (Version("1.2.0"), Version("latest")), Version("1.5.0"))
    assert step.order == "unknown"
