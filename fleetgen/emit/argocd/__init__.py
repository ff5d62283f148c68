"""The Argo CD emitter: cluster registrations, AppProjects, ApplicationSets and a root app.

Files under ``argocd/``: ``clusters/<cluster>.yaml``, ``projects/<project>.yaml``,
``applicationsets/<app>.yaml`` and ``bootstrap.yaml`` (fleetgen's AppProject and the root
Application that syncs the whole directory). ``check`` refuses what Argo CD would silently
ignore or reject at sync time; ``warnings`` reports what is allowed but risky (`checks`);
``emit`` makes the files (`bootstrap`).
"""

from fleetgen.emit.argocd.bootstrap import emit
from fleetgen.emit.argocd.checks import check, warnings

__all__ = ["check", "emit", "warnings"]
