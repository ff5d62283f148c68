"""Field types of the spec: Kubernetes names, labels, durations, URLs, checked at construction."""

from __future__ import annotations

import base64
import binascii
import math
import posixpath
import re
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator

from fleetgen.manifests.k8s import configmap_key_problem
from fleetgen.rules import chartversions

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DURATION = re.compile(r"([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+")
# What Flux's CRDs accept for interval, timeout and retryInterval (a Go duration, ms and longer).
_FLUX_DURATION = re.compile(r"([0-9]+(\.[0-9]+)?(ms|s|m|h))+")
_URL = re.compile(r"https://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?(/[^\s]*)?")
_GIT_URL = re.compile(r"(https|ssh)://[^\s/]+(/[^\s]*)?")
# An IAM role ARN (AwsAuth.role_arn); the EKS cluster ARN of a Flux hub reuses its parts.
ROLE_ARN = re.compile(
    r"arn:(?P<partition>aws[a-z-]*):iam::(?P<account>[0-9]{12}):role/[\w+=,.@/-]+"
)


def repo_path(path: str) -> str:
    """A repo-relative path as written in the spec, normalized ('/' separators, no '.' parts):
    the key of an app's base, and the output_dir."""
    return posixpath.normpath(path.replace("\\", "/"))


def inside_repo(path: str) -> bool:
    """Whether a normalized `repo_path` stays inside the repository (not absolute, no ``..``
    leaving it)."""
    return not (posixpath.isabs(path) or path.startswith(".."))


def dns_label(value: str) -> str:
    """A DNS-1123 label: lowercase alphanumerics and '-', at most 63 characters."""
    if len(value) > 63 or not _DNS_LABEL.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a DNS-1123 label (lowercase letters, digits and '-', "
            "starting and ending with a letter or digit, at most 63 characters)"
        )
    return value


# A glob over namespace characters as AppProject destinations take it (and `namespacing.allowed`
# matches it): '*', '?' and character classes such as '[a-z]' or '[!0-9]'.
_NAMESPACE_GLOB = re.compile(r"([a-z0-9*?-]|\[!?[a-z0-9-]+\])+")


def is_glob(value: str) -> bool:
    """Whether a project namespace entry is a pattern ('*', '?', '[') rather than a name."""
    return any(glob in value for glob in "*?[")


def namespace_pattern(value: str) -> str:
    """A namespace name (DNS-1123 label) or a glob over namespace characters ('team-*')."""
    pattern = _NAMESPACE_GLOB if is_glob(value) else _DNS_LABEL
    if len(value) > 63 or not pattern.fullmatch(value):
        raise ValueError(
            f"{value!r} is neither a namespace name (a DNS-1123 label: lowercase letters, digits "
            "and '-', starting and ending with a letter or digit, at most 63 characters) nor a "
            "glob over those characters with '*', '?' or classes such as '[a-z]'"
        )
    return value


def to_dns_label(text: str, default: str) -> str:
    """``text`` made a DNS-1123 label (lowercased, other runs of characters as '-', cut to 63
    characters); ``default`` when nothing of it is left."""
    label = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:63].strip("-")
    return label or default


def dns_subdomain(value: str) -> str:
    """A DNS-1123 subdomain: dot-separated labels, at most 253 characters."""
    if len(value) > 253 or not _DNS_SUBDOMAIN.fullmatch(value):
        raise ValueError(f"{value!r} is not a DNS-1123 subdomain")
    return value


_NAME_PREFIX = re.compile(r"[a-z][-a-z0-9]*")


def name_prefix(value: str) -> str:
    """A kustomize ``namePrefix`` every object name may start with: lowercase letters, digits and
    '-', starting with a letter (a Service's name is a DNS-1035 label), at most 62 characters."""
    if len(value) > 62 or not _NAME_PREFIX.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a name prefix (lowercase letters, digits and '-', starting with "
            "a letter, at most 62 characters)"
        )
    return value


# Helm's release name limit (chartutil.ValidateReleaseName, helm v3 and v4), which helm-controller's
# HelmRelease CRD enforces on spec.releaseName (maxLength 53): 63 for the objects named after the
# release, less 10 characters charts add to it.
RELEASE_NAME_LIMIT = 53


def release_name(value: str) -> str:
    """A Helm release name: a DNS-1123 subdomain of at most 53 characters (Helm's
    ``chartutil.ValidateReleaseName``; helm-controller's ``spec.releaseName`` maxLength)."""
    if not _DNS_SUBDOMAIN.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a Helm release name (lowercase letters, digits, '-' and '.', "
            "starting and ending with a letter or digit)"
        )
    if len(value) > RELEASE_NAME_LIMIT:
        raise ValueError(
            f"Helm release name {value!r} is {len(value)} characters; Helm and Flux's "
            f"HelmRelease allow at most {RELEASE_NAME_LIMIT}"
        )
    return value


def label_key(value: str) -> str:
    """A Kubernetes label or annotation key: optional DNS subdomain prefix, '/', name ≤ 63."""
    prefix, _, name = value.rpartition("/")
    if prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix)):
        raise ValueError(
            f"{value!r} is not a valid label key (prefix {prefix!r} is not a DNS-1123 "
            "subdomain: lowercase letters, digits, '-' and '.')"
        )
    if len(name) > 63 or not _LABEL_NAME.fullmatch(name):
        raise ValueError(
            f"{value!r} is not a valid label key (name part: alphanumerics, '-', '_', '.', "
            "starting and ending alphanumeric, at most 63 characters; optional 'prefix/')"
        )
    return value


VAR_PREFIX = "fleetgen.io/var."  # a cluster var's annotation key on its registration
VAR_NAME_LIMIT = 63 - len("var.")  # the name part of an annotation key is at most 63 characters


def var_name(value: str) -> str:
    """A cluster var's name: one that makes ``fleetgen.io/var.<name>`` an annotation key
    (alphanumerics, '-', '_', '.', alphanumeric at both ends, at most 59 characters)."""
    if len(value) > VAR_NAME_LIMIT or not _LABEL_NAME.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a cluster var name (it names the annotation {VAR_PREFIX}<name>: "
            "alphanumerics, '-', '_', '.', starting and ending alphanumeric, at most "
            f"{VAR_NAME_LIMIT} characters)"
        )
    return value


def label_value(value: str) -> str:
    """A Kubernetes label value: empty, or ≤ 63 alphanumerics, '-', '_', '.'."""
    if value and (len(value) > 63 or not _LABEL_NAME.fullmatch(value)):
        raise ValueError(
            f"{value!r} is not a valid label value (at most 63 characters: alphanumerics, "
            "'-', '_', '.', starting and ending alphanumeric); long values belong in annotations"
        )
    return value


def duration(value: str) -> str:
    """A Go duration such as '30s', '5m' or '1h30m'."""
    if not _DURATION.fullmatch(value):
        raise ValueError(f"{value!r} is not a duration (use Go syntax such as '30s', '5m', '1h')")
    return value


def flux_duration(value: str) -> str:
    """A Go duration in the units Flux's CRDs accept: '30s', '5m', '1h30m' (ms, s, m, h)."""
    if not _FLUX_DURATION.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a duration Flux accepts (use Go syntax in ms, s, m "
            "or h, such as '30s', '5m', '1h30m')"
        )
    return value


def server_url(value: str) -> str:
    """A Kubernetes API server URL: https://host[:port][/path]. Plain http:// is refused: the
    engines would send the cluster's credentials (tokens, exec-plugin output) in clear text."""
    if "@" in value.partition("://")[2].split("/")[0]:
        raise ValueError(
            "credentials do not belong in a server URL (expected https://host[:port]; "
            "the URL is not repeated here because it holds a credential)"
        )
    if value.startswith("http://"):
        raise ValueError(
            "a plain http:// API server would receive the cluster credentials in "
            "clear text; use https://host[:port]"
        )
    if not _URL.fullmatch(value):
        raise ValueError(f"{value!r} is not an API server URL (expected https://host[:port])")
    return value


def git_url(value: str) -> str:
    """A Git repository URL in https:// or ssh:// form (what Argo CD and Flux both accept).
    Plain http:// is refused: anyone on the path could change what every cluster deploys."""
    if value.startswith("http://"):
        raise ValueError(
            f"{value!r}: plain http:// lets anyone on the network path change what "
            "the clusters deploy; use https:// or ssh://"
        )
    if not _GIT_URL.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a Git URL in https:// or ssh:// form "
            "(scp-style 'git@host:path' is refused by Flux; write ssh://git@host/path)"
        )
    return value


_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----")


def ca_bundle(text: str) -> str:
    """A cluster's CA as ``Cluster.ca_data`` holds it (the base64 of PEM), from PEM text or the
    base64 line ``aws eks describe-cluster``/``gcloud`` print; ValueError when it holds anything
    but CERTIFICATE blocks (a private key above all)."""
    text = text.strip()
    if "-----BEGIN" not in text:
        try:
            text = base64.b64decode("".join(text.split()), validate=True).decode("ascii").strip()
        except (binascii.Error, UnicodeDecodeError):
            text = ""
    blocks = _PEM_BLOCK.findall(text)
    if any("PRIVATE KEY" in block for block in blocks):
        raise ValueError(
            "holds a private key: give the cluster's CA certificate (public) only, and keep "
            "the key out of the repository"
        )
    if not blocks or set(blocks) != {"CERTIFICATE"}:
        raise ValueError(
            "expected the cluster's CA certificate (PEM CERTIFICATE blocks, or their base64 "
            "as `aws eks describe-cluster` prints it)"
        )
    return base64.b64encode(text.encode("ascii") + b"\n").decode("ascii")


def is_placeholder(url: str) -> bool:
    """Whether ``url``'s host is under ``.invalid``, the domain that never resolves (RFC 2606),
    as in the repo and the cluster server `fleetgen init` writes until they are known."""
    host = (urlsplit(url).hostname or "").rstrip(".")
    return host == "invalid" or host.endswith(".invalid")


def placeholder_note(url: str) -> str | None:
    """Why ``url`` cannot be the repository the engines read, when it is a placeholder
    (`is_placeholder`); None otherwise."""
    if not is_placeholder(url):
        return None
    return (
        f"repo {url} is a placeholder (a .invalid host never resolves), so neither Argo CD "
        "nor Flux can fetch this repository: set it to the https:// or ssh:// URL they read "
        "it from"
    )


def server_placeholder_note(cluster: str, server: str) -> str | None:
    """Why ``server`` cannot be the API server of ``cluster``, when it is a placeholder
    (`is_placeholder`); None otherwise."""
    if not is_placeholder(server):
        return None
    return (
        f"cluster {cluster!r}: server {server} is a placeholder (a .invalid host never "
        "resolves), so no engine can reach the cluster by it: set it to the cluster's API "
        "server URL"
    )


_OCI_URL = re.compile(r"oci://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._/-]+)")


def oci_url(value: str) -> str:
    """An OCI artifact repository, ``oci://registry[:port]/path``, without credentials or tag."""
    if "@" in value.partition("://")[2]:
        raise ValueError(
            "credentials, digests and tags do not belong in an OCI URL (pin it with "
            "tag= or digest=; the URL is not repeated here as it may hold a "
            "credential)"
        )
    if not _OCI_URL.fullmatch(value) or value.endswith("/"):
        raise ValueError(f"{value!r} is not an OCI repository URL (expected oci://registry/path)")
    return value


def config_key(value: str) -> str:
    """A ConfigMap data key: alphanumerics, '-', '_', '.', and not number-, bool- or date-like."""
    problem = configmap_key_problem(value)
    if problem:
        raise ValueError(problem)
    return value


_VERSION = re.compile(r"v?([0-9]+)\.([0-9]+)(\.[0-9]+)?")


def release(value: str) -> tuple[int, int]:
    """(major, minor) of a controller release such as '2.7', '3.3.14' or 'v2.9'."""
    found = _VERSION.fullmatch(value)
    if not found:
        raise ValueError(f"{value!r} is not a release version (use MAJOR.MINOR such as '2.7')")
    return int(found[1]), int(found[2])


def release_patch(value: str) -> tuple[int, int, int | None]:
    """(major, minor, patch) of a controller release; patch None when ``value`` names none."""
    release(value)
    found = _VERSION.fullmatch(value)
    assert found is not None
    return int(found[1]), int(found[2]), int(found[3][1:]) if found[3] else None


def version(value: str) -> str:
    """A controller release version, MAJOR.MINOR[.PATCH]."""
    release(value)
    return value


_CHART_REPO = re.compile(r"(https|oci)://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[^\s]*)?")


def chart_version(value: str) -> str:
    """An exact chart version (SemVer 2, optional ``v``) or a range both engines resolve alike
    (`fleetgen.rules.chartversions`); a partial version such as ``1.2`` is refused: Argo CD
    reads it as an exact tag, Flux as a range."""
    found = chartversions.kind(value)
    if found == "partial":
        raise ValueError(
            f"chart version {value!r} is partial: Argo CD reads it as the exact tag "
            f"{value!r}, Flux as a range; write {_spelled(value)}"
        )
    if found is None:
        raise ValueError(
            f"chart version {value!r} is neither an exact version such as '1.2.3' nor a "
            "range such as '>=1.0.0', '1.2.x', '~1.2', '^1.2' or '*' (as Argo CD and Flux read "
            "them: Masterminds semver)"
        )
    return value


def _spelled(partial: str) -> str:
    """What to write for a partial version: its range both ways, or the exact version."""
    version = chartversions.loose(partial)
    assert version is not None
    if partial.count(".") >= 2:  # complete but with leading zeros: the exact version
        return repr(f"{version.major}.{version.minor}.{version.patch}")
    if "." in partial:
        return f"'{version.major}.{version.minor}.x' or '~{version.major}.{version.minor}'"
    return f"'{version.major}.x' or '^{version.major}'"


def chart_repo(value: str) -> str:
    """A Helm repository (``https://``) or OCI registry path (``oci://``), without credentials."""
    if "@" in value.partition("://")[2].split("/")[0]:
        raise ValueError(
            "credentials do not belong in a chart repository URL (the URL is not "
            "repeated here because it holds a credential)"
        )
    if value.startswith("http://"):
        raise ValueError(
            f"{value!r}: a plain http:// chart repository lets anyone on the "
            "network path change what the clusters deploy; use https://"
        )
    if not _CHART_REPO.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a chart repository: use https://host/path for a "
            "Helm repository or oci://registry/path for an OCI registry"
        )
    return value.rstrip("/")


class Placeholder:
    """A value filled in per cluster (`fleetgen.ClusterVar` derives from it): allowed anywhere
    in Helm values."""

    __slots__ = ()


def helm_values(value: dict[str, Any]) -> dict[str, Any]:
    """Helm values: maps with string keys, lists, strings, bools, ints, finite floats, None, and
    ClusterVars."""
    problem = values_problem(value, "values")
    if problem:
        raise ValueError(problem)
    return value


def values_problem(value: Any, where: str) -> str | None:
    """What makes ``value`` (at ``where``) no Helm values document, None when it is one."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{where}: key {key!r} is not a string (Helm values keys are strings)"
            found = values_problem(item, f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(value, list | tuple):
        return next(
            filter(
                None,
                (values_problem(item, f"{where}[{index}]") for index, item in enumerate(value)),
            ),
            None,
        )
    if isinstance(value, float) and not math.isfinite(value):
        return f"{where}: {value!r} cannot be written as a Helm value"
    if value is None or isinstance(value, str | bool | int | float | Placeholder):
        return None
    return (
        f"{where}: a {type(value).__name__} is not a Helm value (use maps, lists, strings, "
        "numbers, booleans, None or ClusterVar(...))"
    )


Name = Annotated[str, AfterValidator(dns_label)]
NamespacePattern = Annotated[str, AfterValidator(namespace_pattern)]
ObjectName = Annotated[str, AfterValidator(dns_subdomain)]
ReleaseName = Annotated[str, AfterValidator(release_name)]
NamePrefix = Annotated[str, AfterValidator(name_prefix)]
LabelKey = Annotated[str, AfterValidator(label_key)]
LabelValue = Annotated[str, AfterValidator(label_value)]
Duration = Annotated[str, AfterValidator(duration)]
FluxDuration = Annotated[str, AfterValidator(flux_duration)]
ServerURL = Annotated[str, AfterValidator(server_url)]
GitURL = Annotated[str, AfterValidator(git_url)]
OciURL = Annotated[str, AfterValidator(oci_url)]
ConfigKey = Annotated[str, AfterValidator(config_key)]
Version = Annotated[str, AfterValidator(version)]
ChartVersion = Annotated[str, AfterValidator(chart_version)]
ChartRepo = Annotated[str, AfterValidator(chart_repo)]
HelmValues = Annotated[dict[str, Any], AfterValidator(helm_values)]
VarName = Annotated[str, AfterValidator(var_name)]
Labels = dict[LabelKey, LabelValue]
Annotations = dict[LabelKey, str]
