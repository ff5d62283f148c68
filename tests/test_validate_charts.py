"""``validate --render`` renders chart apps (Helm's Go SDK in-process, real charts, real schemas):
local charts from the repo, remote charts from a ``--charts`` cache, the rest counted as not
rendered; their objects go through the schema, policy and ownership checks of kustomize-rendered
ones, and renders are cached."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import helm_python
import pytest
import yaml

from fleetgen.tools.kustomize import Kustomize
from tests.helpers import run_fleetgen
from tests.test_validate import FLEET, ROOT, deployment, report, spec_line

CHART_FLEET = FLEET.replace("Selector, Waiver)", "Selector, Waiver, HelmChart)")
ECHO = ROOT / "tests/charts/echo"
REMOTE = 'HelmChart(repo="https://charts.example.com", name="echo", version="0.3.0")'


def chart_repo(
    root: Path, *apps: str, bases: dict[str, list[dict[str, Any]]] | None = None
) -> Path:
    """A repo with ``apps`` (App(...) source, one per line, each ending in ``# <- NAME``),
    the echo test chart in charts/echo and kustomize ``bases`` under apps/NAME/base."""
    root.mkdir(exist_ok=True)
    (root / "fleet.py").write_text(
        CHART_FLEET.format(
            apps="\n".join("        " + app.replace("  # <-", ",  # <-") for app in apps)
        )
    )
    shutil.copytree(ECHO, root / "charts/echo")
    for name, docs in (bases or {}).items():
        base = root / "apps" / name / "base"
        base.mkdir(parents=True)
        (base / "objects.yaml").write_text(yaml.safe_dump_all(docs, sort_keys=False))
        (base / "kustomization.yaml").write_text("resources:\n- objects.yaml\n")
    return root


def echo_app(chart: str = 'HelmChart(path="charts/echo")', extra: str = "") -> str:
    return f'App(name="echo", project="team", namespace="shared", chart={chart}{extra})  # <- echo'


def chart_cache(directory: Path, version: str = "0.3.0", name: str | None = None) -> Path:
    """``directory`` holding the echo chart packaged at ``version`` (as ``helm pull`` leaves
    it), renamed to ``name`` when given."""
    directory.mkdir(exist_ok=True)
    archive = Path(helm_python.package(ECHO, destination=directory, version=version))
    if name is not None:
        archive.rename(directory / name)
    return directory


def rules(data: dict[str, Any], app: str = "echo") -> set[tuple[str, tuple[str, ...], Any]]:
    return {
        (f["rule"], tuple(f["clusters"]), f["location"]["path"] if f["location"] else None)
        for f in data["findings"]
        if f["app"] == app
    }


# The echo chart's Deployment sets a memory limit only, no runAsNonRoot and no probes.
ECHO_FINDINGS = {
    ("resource-limits", ("dev-1", "prod-1", "prod-2")),
    ("run-as-non-root", ("dev-1", "prod-1", "prod-2")),
    ("probes", ("dev-1", "prod-1", "prod-2")),
}


def test_a_local_chart_is_rendered_with_each_placements_values_and_checked(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    repo = chart_repo(
        tmp_path / "repo",
        echo_app(extra=(', per_cluster={"prod-2": Overrides(values={"replicaCount": "many"})}')),
    )
    data = report(repo, "--render", code=1)
    template = "charts/echo/templates/deployment.yaml"
    assert rules(data) == {(rule, clusters, template) for rule, clusters in ECHO_FINDINGS} | {
        ("schema", ("prod-2",), template)
    }  # replicas: "many" only where prod-2's values say so
    (schema,) = (f for f in data["findings"] if f["rule"] == "schema")
    assert (schema["object"], schema["field"]) == ("Deployment shared/echo", "spec/replicas")
    charts = data["summary"]["charts"]
    # dev-1 and prod-1 share their values: one render; prod-2 has its own.
    assert charts == {
        "placements": 3,
        "distinct": 2,
        "built": 2,
        "cached": 0,
        "not_rendered": {},
        "ranges": {},
    }
    assert data["summary"]["rendered_checked"] == 6  # a Deployment and a ConfigMap each


def test_chart_renders_are_cached_by_chart_content_and_values(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    repo = chart_repo(tmp_path / "repo", echo_app())
    first = report(repo, "--render", code=1)["summary"]["charts"]
    assert (first["distinct"], first["built"]) == (1, 1)
    assert list((repo / "output/.fleetgen/cache/helm").rglob("*.bin"))
    assert report(repo, "--render", code=1)["summary"]["charts"]["built"] == 0
    values = repo / "charts/echo/values.yaml"  # the chart's content is part of the key
    values.write_text(values.read_text().replace("memory: 128Mi", "memory: 128Mi\n    cpu: 1"))
    again = report(repo, "--render", code=1)
    assert again["summary"]["charts"]["built"] == 1
    assert ("resource-limits", ("dev-1", "prod-1", "prod-2")) not in {
        (rule, clusters) for rule, clusters, _ in rules(again)
    }


def test_a_remote_chart_renders_from_the_charts_cache_or_is_counted_not_rendered(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    repo = chart_repo(tmp_path / "repo", echo_app(REMOTE))
    cache = chart_cache(tmp_path / "charts")
    data = report(repo, "--render", "--charts", str(cache), code=1)
    assert rules(data) == {(rule, clusters, None) for rule, clusters in ECHO_FINDINGS}
    assert data["summary"]["charts"]["not_rendered"] == {}
    # Without the cache: nothing of the chart is checked, and the summary says so.
    data = report(repo, "--render", code=0)
    assert rules(data) == set()
    reason = (
        "chart echo 0.3.0: a chart from a repository; give a local chart cache with --charts DIR"
    )
    assert data["summary"]["charts"]["not_rendered"] == {reason: 3}
    text = run_fleetgen(repo, "validate", "--render")
    assert text.returncode == 0
    assert f"not rendered: {reason} (3 placement(s))" in text.stdout.splitlines()
    assert text.stdout.splitlines()[-1].endswith(
        "3 chart placement(s), 0 distinct render(s): 0 rendered, 0 from cache, 3 not rendered"
    )


def test_a_cached_archive_must_hold_the_pinned_chart(tmp_path: Path, kustomize: Kustomize) -> None:
    repo = chart_repo(tmp_path / "repo", echo_app(REMOTE))
    cache = chart_cache(tmp_path / "charts", version="0.2.0", name="echo-0.3.0.tgz")
    data = report(repo, "--render", "--charts", str(cache), code=0)
    assert data["summary"]["charts"]["not_rendered"] == {
        f"chart echo 0.3.0: {cache / 'echo-0.3.0.tgz'} holds chart echo 0.2.0": 3
    }
    assert not (tmp_path / "nowhere").exists()
    result = run_fleetgen(repo, "validate", "--render", "--charts", str(tmp_path / "nowhere"))
    assert (result.returncode, result.stdout) == (2, "")
    assert "--charts" in result.stderr and "Traceback" not in result.stderr
    result = run_fleetgen(repo, "validate", "--charts", str(cache))
    assert (result.returncode, result.stdout) == (2, "")
    assert "only with --render" in result.stderr and "Traceback" not in result.stderr


def clashing_repo(tmp_path: Path) -> Path:
    """The echo chart app and a kustomize app whose base holds a ConfigMap named like the
    chart's, in the chart app's namespace."""
    clash = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "echo-values", "namespace": "shared"},
        "data": {"K": "v"},
    }
    return chart_repo(
        tmp_path / "repo",
        echo_app(),
        'App(name="other", project="team", namespace="shared", path="apps/other/base")  # <- other',
        bases={"other": [clash, deployment("other")]},
    )


def test_an_object_of_a_chart_and_of_a_kustomize_app_is_an_ownership_finding(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    repo = clashing_repo(tmp_path)
    data = report(repo, "--render", code=1)
    owned = [f for f in data["findings"] if f["rule"] == "ownership"]
    assert [(f["app"], f["object"], f["message"], f["clusters"]) for f in owned] == [
        (
            "other",
            "ConfigMap shared/echo-values",
            "rendered by both echo and other",
            ["dev-1", "prod-1", "prod-2"],
        )
    ]


def test_a_chart_object_without_namespace_is_owned_in_the_release_namespace(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    # Helm installs a namespaced object without metadata.namespace into the release namespace
    # (helm/helm pkg/kube Client.Build -> buildResourceList: NamespaceParam(release namespace)
    # .DefaultNamespace() on the resource builder), and
    # helm-controller and Argo CD release chart apps into the app's namespace, so the chart's
    # ConfigMap clashes with the kustomize app's one of the same name there.
    repo = clashing_repo(tmp_path)
    template = repo / "charts/echo/templates/values.yaml"
    text = template.read_text()
    assert "  namespace: {{ .Release.Namespace }}\n" in text
    template.write_text(text.replace("  namespace: {{ .Release.Namespace }}\n", ""))
    data = report(repo, "--render", code=1)
    owned = [f for f in data["findings"] if f["rule"] == "ownership"]
    assert [(f["app"], f["object"], f["clusters"]) for f in owned] == [
        ("other", "ConfigMap shared/echo-values", ["dev-1", "prod-1", "prod-2"])
    ]


def test_a_chart_helm_cannot_render_is_a_located_finding(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    repo = chart_repo(tmp_path / "repo", echo_app())
    template = repo / "charts/echo/templates/required.yaml"
    template.write_text('{{ required "the chart needs a banner" .Values.banner }}\n')
    data = report(repo, "--render", code=1)
    (failed,) = (f for f in data["findings"] if f["rule"] == "helm-render")
    assert "the chart needs a banner" in failed["message"]
    assert failed["clusters"] == ["dev-1", "prod-1", "prod-2"]
    assert failed["location"] == {"path": "fleet.py", "line": spec_line(repo, "# <- echo")}


def test_a_template_that_renders_no_yaml_is_a_finding_in_go_yamls_words(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """The rendered text is read by libyaml, whose messages go-yaml (its Go port, which Helm and
    kubectl parse with) shares: "mapping values are not allowed in this context", as
    ``helm template`` says it."""
    repo = chart_repo(tmp_path / "repo", echo_app())
    (repo / "charts/echo/templates/broken.yaml").write_text("broken: yes: no\n")
    data = report(repo, "--render", code=1)
    (failed,) = (f for f in data["findings"] if f["rule"] == "helm-render")
    assert failed["message"].startswith(
        "echo/templates/broken.yaml: mapping values are not allowed in this context"
    )
    assert failed["clusters"] == ["dev-1", "prod-1", "prod-2"]


def test_a_value_of_another_kind_than_the_charts_default_is_a_warning_at_the_app(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """Helm's values coalescing logs where a value and the chart's default differ in kind, a map
    against a scalar ("destination for echo.image.tag is a table. Ignoring non-table value"),
    and renders on."""
    repo = chart_repo(
        tmp_path / "repo",
        echo_app(extra=(', per_env={"prod": Overrides(values={"image": {"tag": {"major": 2}}})}')),
    )
    data = report(repo, "--render")
    warned = [f for f in data["findings"] if f["rule"] == "helm-warning"]
    assert [(f["severity"], f["clusters"], f["location"]["line"]) for f in warned] == [
        ("warning", ["prod-1", "prod-2"], spec_line(repo, "# <- echo"))
    ]
    assert warned[0]["message"].startswith("warning: destination for echo.image.tag is a table")
    assert report(repo, "--render")["findings"] == data["findings"]  # kept in the cache too


@pytest.mark.parametrize("charts", [False, True])
def test_the_example_renders_its_local_chart_and_counts_the_remote_one(
    tmp_path: Path, kustomize: Kustomize, charts: bool
) -> None:
    repo = tmp_path / "repo"
    for name in ("apps", "charts", "output"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("cache"))
    shutil.copy(ROOT / "fleet.py", repo)
    args = ("--charts", str(chart_cache(tmp_path / "cache"))) if charts else ()
    data = report(repo, "--render", *args, code=0)
    counts = data["summary"]["charts"]
    # status-page (in the repo) on dev and staging; cert-manager (remote) on all five clusters,
    # not in the cache either way (the cache holds only echo).
    assert (counts["placements"], counts["distinct"]) == (7, 2)
    assert counts["not_rendered"] == {next(iter(counts["not_rendered"])): 5}
    assert next(iter(counts["not_rendered"])).startswith("chart cert-manager v1.16.2: ")


def test_a_chart_is_rendered_under_its_release_name(tmp_path: Path, kustomize: Kustomize) -> None:
    """``HelmChart(release_name=...)`` is ``.Release.Name`` of the render (the echo chart names
    its Deployment and ConfigMap after it)."""
    repo = chart_repo(
        tmp_path / "repo", echo_app('HelmChart(path="charts/echo", release_name="frontend")')
    )
    data = report(repo, "--render", code=1)
    objects = {f["object"] for f in data["findings"] if f["app"] == "echo"}
    assert objects == {"Deployment shared/frontend"}


def test_a_flux_chart_apps_post_render_is_applied_before_the_checks(
    tmp_path: Path, kustomize: Kustomize
) -> None:
    """``validate --render`` checks what the cluster gets: the chart's objects post-rendered by
    the app's patches with kustomize, as helm-controller's post-renderer does
    (internal/postrender ``Kustomize.Run``); a cluster's own patch is one more render."""
    non_root = {"spec": {"template": {"spec": {"securityContext": {"runAsNonRoot": True}}}}}
    patch = f'Patch(target={{"kind": "Deployment"}}, patch={non_root!r})'
    repo = chart_repo(
        tmp_path / "repo",
        echo_app(extra=f', per_cluster={{"prod-2": Overrides(patches=[{patch}])}}'),
    )
    spec = repo / "fleet.py"
    spec.write_text(
        spec.read_text()
        .replace("HelmChart)", "HelmChart, Patch)")
        .replace('name="t",', 'name="t", engines=["flux"],')
    )
    data = report(repo, "--render", code=1)
    template = "charts/echo/templates/deployment.yaml"
    assert rules(data) == {
        ("resource-limits", ("dev-1", "prod-1", "prod-2"), template),
        ("run-as-non-root", ("dev-1", "prod-1"), template),
        ("probes", ("dev-1", "prod-1", "prod-2"), template),
    }
    assert data["summary"]["charts"]["distinct"] == 2
