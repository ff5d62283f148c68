"""Scaffolding: ``init`` writes a new fleet (`new_fleet`); ``add cluster|app|env|engine|project``
and ``promote`` (`promote`, committing on a new branch through `branch`) edit fleet.py (`add`,
through `edit`) and validate the edited spec — load, resolve, emitter checks — before anything is
written.

fleet.py snippets come from Jinja templates (values through ``repr``, `snippets`); app base
manifests are data, serialized by `fleetgen.manifests.yamlio`; output/ is rebuilt through
`fleetgen.write.writer`.
"""

from fleetgen.scaffold.add import (
    Added,
    ImageNameNeeded,
    ProjectTooNarrow,
    add_app,
    add_cluster,
    add_engine,
    add_env,
    add_project,
)
from fleetgen.scaffold.new_fleet import Initialized, init, init_files
from fleetgen.scaffold.next_steps import cluster_next_steps, engine_next_steps, rollout_step
from fleetgen.scaffold.promote import Promoted, PromoteRequest, promote, summary
from fleetgen.scaffold.requests import (
    AppRequest,
    ClusterRequest,
    EngineRequest,
    EnvRequest,
    ProjectRequest,
    parse_pairs,
    read_ca_data,
)

__all__ = [
    "Added",
    "AppRequest",
    "ClusterRequest",
    "EngineRequest",
    "EnvRequest",
    "ImageNameNeeded",
    "Initialized",
    "ProjectRequest",
    "ProjectTooNarrow",
    "PromoteRequest",
    "Promoted",
    "add_app",
    "add_cluster",
    "add_engine",
    "add_env",
    "add_project",
    "cluster_next_steps",
    "engine_next_steps",
    "init",
    "init_files",
    "parse_pairs",
    "promote",
    "read_ca_data",
    "rollout_step",
    "summary",
]
