"""Chart version strings as both engines read them (`fleetgen.rules.chartversions`): which are
exact, ranges or partial versions, and what a range allows, following Masterminds semver v3
(``NewVersion``, ``NewConstraint``, ``Constraints.Check``), which Argo CD's repo server
(``newHelmClientResolveRevision``: ``versions.IsVersion``, ``versions.MaxVersion``) and Flux's
source-controller (``ChartRepository.getChartVersion``, ``OCIRepositoryReconciler
.getTagBySemver``, ``version.ParseVersion``) call. The expected sets are what Masterminds semver
v3.4.0 (Argo CD's) and v3.5.0 (Flux's) return for the same strings."""

from __future__ import annotations

import pytest

from fleetgen.rules.chartversions import Range, highest, kind, strict

VERSIONS = [
    "0.0.3",
    "0.2.3",
    "0.2.9",
    "0.3.0",
    "1.0.0-rc.1",
    "1.0.0",
    "1.2.0",
    "1.2.3",
    "1.2.9-beta.1",
    "1.2.9",
    "1.3.0",
    "1.10.0",
    "2.0.0",
    "6.4.1",
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # exact: versions.IsVersion pins it on Argo CD; getChartVersion matches it first on Flux
        ("1.2.3", "exact"),
        ("v1.16.2", "exact"),
        ("1.0.0-rc.1", "exact"),
        ("1.2.3+build.7", "exact"),
        # ranges: IsVersion refuses them, NewConstraint parses them
        (">=1.0.0", "range"),
        ("6.x", "range"),
        ("~1.2", "range"),
        ("^1.2.3", "range"),
        ("*", "range"),
        (">=1.0.0 <2.0.0", "range"),
        (">= 1.0, < 2", "range"),
        ("1.0.0 - 1.4.0", "range"),
        ("~1.2 || ^3", "range"),
        (">=1.0.0-0", "range"),
        # partial: NewVersion coerces them (Argo CD asks for that tag), Flux reads a range
        ("1.2", "partial"),
        ("6", "partial"),
        ("v1", "partial"),
        ("01.2.3", "partial"),
        # neither
        ("latest", None),
        ("", None),
        (">=1.0.0 &&", None),
        ("1.2.3-01", None),  # a numeric pre-release identifier with a leading zero
    ],
)
def test_a_version_string_is_exact_a_range_or_partial(text: str, expected: str | None) -> None:
    assert kind(text) == expected


@pytest.mark.parametrize(
    ("text", "allowed"),
    [
        # constraintTilde
        ("~1.2.3", {"1.2.3", "1.2.9"}),
        ("~1.2", {"1.2.0", "1.2.3", "1.2.9"}),
        ("~1", {"1.0.0", "1.2.0", "1.2.3", "1.2.9", "1.3.0", "1.10.0"}),
        # constraintCaret
        ("^1.2.3", {"1.2.3", "1.2.9", "1.3.0", "1.10.0"}),
        ("^0.2.3", {"0.2.3", "0.2.9"}),
        ("^0.0.3", {"0.0.3"}),
        # x wildcards, partial comparisons and hyphen ranges (rewriteRange)
        ("1.2.x", {"1.2.0", "1.2.3", "1.2.9"}),
        (">1.2", {"1.3.0", "1.10.0", "2.0.0", "6.4.1"}),
        ("<=1.2", {"0.0.3", "0.2.3", "0.2.9", "0.3.0", "1.0.0", "1.2.0", "1.2.3", "1.2.9"}),
        ("1.2.0 - 1.3.0", {"1.2.0", "1.2.3", "1.2.9", "1.3.0"}),
        # AND by space or comma, OR by ||, != with a wildcard
        (">=1.2.0, <1.3.0 || 6.x", {"1.2.0", "1.2.3", "1.2.9", "6.4.1"}),
        (">=1.0.0 !=1.2.x <2.0.0", {"1.0.0", "1.3.0", "1.10.0"}),
    ],
)
def test_a_range_allows_what_masterminds_semver_allows(text: str, allowed: set[str]) -> None:
    found = Range.parse(text)
    assert found is not None
    assert {v for v in VERSIONS if found.allows(_version(v))} == allowed


def test_pre_releases_match_only_where_the_range_names_one() -> None:
    """``Constraints.Check``: a pre-release is considered only by an alternative (``||``)
    with a comparison that names a pre-release."""
    plain, named = Range.parse(">=1.0.0"), Range.parse(">=1.0.0-0")
    assert plain is not None and named is not None
    assert not plain.allows(_version("1.2.9-beta.1"))
    assert named.allows(_version("1.2.9-beta.1")) and named.allows(_version("1.0.0-rc.1"))
    assert highest(">=1.0.0", VERSIONS) == "6.4.1"
    assert highest("~1.2", VERSIONS) == "1.2.9"
    assert highest("~1.2.9-0", VERSIONS) == "1.2.9"  # the release outranks its pre-release


def test_the_highest_allowed_version_is_picked_and_build_metadata_is_not_compared() -> None:
    assert highest("6.x", VERSIONS) == "6.4.1"
    assert highest("^3", VERSIONS) is None
    assert highest("*", ["1.0.0", "v2.0.0", "latest", "3.0"]) == "v2.0.0"  # 3.0: not strict
    # Version.Compare ignores build metadata: both are 1.2.3; the pick is deterministic.
    assert highest("~1.2", ["1.2.3+b", "1.2.3+a"]) == "1.2.3+b"
    assert highest("=1.2.3+a", ["1.2.3+b"]) == "1.2.3+b"


def test_flux_parses_chart_versions_strictly() -> None:
    """``version.ParseVersion``: an optional ``v``, then three numbers without leading zeros."""
    assert strict("v1.2.3") is not None and strict("1.2.3-rc.1+b") is not None
    assert all(strict(text) is None for text in ("1.2", "01.2.3", "1.2.3-", "1.2.3+", "1.x.0"))


def _version(text: str) -> object:
    found = strict(text)
    assert found is not None
    return found
