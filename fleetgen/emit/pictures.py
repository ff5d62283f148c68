"""Mermaid pictures of a fleet, which GitHub and GitLab draw from a ```` ```mermaid ```` block: the
environments with their clusters and engines (`environments`), and each environment's rollout
waves with the clusters in each (`rollouts`). The fleet map (``output/README.md``) shows both;
``diff --format markdown`` shows the rollout order of the clusters a change touches.

They stay readable at 1,000 clusters: past `MAX_NODES` clusters an environment draws a node per
rollout wave and engine with a count, and past `MAX_NAMES` a wave's node counts its clusters
instead of naming them. Every label is text escaped for Mermaid (`label`); node ids are generated,
never names. Output depends only on the arguments' order.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fleetgen.model import Fleet

MAX_NODES = 12  # clusters of an environment drawn one by one
MAX_NAMES = 8  # cluster names in a wave's node
PRODUCTION = "classDef production stroke:#d73a49,stroke-width:3px"

_PLAIN = re.compile(r"[A-Za-z0-9 _.,:=/()+-]")


@dataclass(frozen=True, slots=True)
class Wave:
    """One rollout step: its number (1 first), the labels that select it, its clusters."""

    number: int
    selector: str  # "key=value, …"; empty: the clusters no earlier step took
    clusters: tuple[str, ...]

    @property
    def title(self) -> str:
        """How the pictures name it: ``wave 1 (ring=canary)``."""
        return f"wave {self.number}" + (f" ({self.selector})" if self.selector else "")


@dataclass(frozen=True, slots=True)
class EnvView:
    """An environment as the pictures draw it: its clusters in name order, its rollout waves
    (none: all clusters sync at once)."""

    name: str
    production: bool
    clusters: tuple[str, ...]
    waves: tuple[Wave, ...]


def env_views(fleet: Fleet) -> list[EnvView]:
    """The environments of ``fleet`` in spec order, each with its clusters and rollout waves
    (the empty waves left out)."""
    found = []
    for env in fleet.environments:
        clusters = sorted((c.name, c.labels) for c in fleet.clusters if c.env == env.name)
        waves: tuple[Wave, ...] = ()
        if env.rollout is not None:
            steps = zip(env.rollout.steps, env.rollout.waves(clusters), strict=True)
            waves = tuple(
                Wave(number, _selector(step.match_labels), names)
                for number, (step, names) in enumerate(steps, 1)
                if names
            )
        names = tuple(name for name, _ in clusters)
        found.append(EnvView(env.name, env.is_production, names, waves))
    return found


def touched(views: Iterable[EnvView], clusters: Collection[str]) -> list[EnvView]:
    """``views`` narrowed to ``clusters``: the environments holding one, with those clusters
    and the waves holding them (each keeps its number)."""
    found = []
    for view in views:
        names = tuple(c for c in view.clusters if c in clusters)
        if names:
            waves = (
                Wave(w.number, w.selector, tuple(c for c in w.clusters if c in clusters))
                for w in view.waves
            )
            kept = tuple(wave for wave in waves if wave.clusters)
            found.append(EnvView(view.name, view.production, names, kept))
    return found


def environments(views: Sequence[EnvView], engines: Mapping[str, str]) -> str:
    """A flowchart of each environment and its clusters with the engine(s) each runs
    (``engines``: cluster -> engine names as shown), each environment linked to the next in
    promotion order, the order of ``Fleet(environments=...)`` that ``versions`` and ``promote``
    read (dev → staging → prod) by a dotted "promote" arrow; "" without environments."""
    lines = []
    for e, view in enumerate(views, 1):
        env = f"e{e}"
        lines.append(f"  {env}{_node([_env_title(view)], view.production)}")
        for g, text in enumerate(_cluster_nodes(view, engines), 1):
            lines.append(f"  {env} --> {env}c{g}{_node(text, view.production)}")
    ids = [f"e{e}" for e in range(1, len(views) + 1)]
    lines += [f"  {a} -. promote .-> {b}" for a, b in pairwise(ids)]
    return _chart(lines, views)


def rollouts(views: Sequence[EnvView], *, all_at_once: bool = False) -> str:
    """A flowchart of each environment's rollout: its waves in order (the first, the canary,
    at the left), each naming its clusters (or counting them past `MAX_NAMES`). An environment
    without a rollout is left out, or with ``all_at_once`` drawn as one node of all its
    clusters. "" when nothing is drawn."""
    lines = []
    drawn = [view for view in views if view.waves or all_at_once]
    for e, view in enumerate(drawn, 1):
        lines += [f"  subgraph r{e}{_node([_env_title(view)])}", "    direction LR"]
        steps = [(w.title, w.clusters) for w in view.waves] or [("all at once", view.clusters)]
        ids = [f"r{e}w{n}" for n in range(1, len(steps) + 1)]
        for node, (title, clusters) in zip(ids, steps, strict=True):
            lines.append(f"    {node}{_node([title, *_names(clusters)], view.production)}")
        lines += [f"    {a} --> {b}" for a, b in pairwise(ids)]
        lines.append("  end")
    return _chart(lines, drawn)


def label(text: str) -> str:
    """``text`` as Mermaid shows it inside a quoted label: letters, digits and plain punctuation
    as they are, anything else (quotes, brackets, ``#``, ``<``, markdown) as an entity code."""
    return "".join(ch if _PLAIN.fullmatch(ch) else f"#{ord(ch)};" for ch in text)


def _chart(lines: list[str], views: Sequence[EnvView]) -> str:
    """A flowchart of ``lines`` (left to right), with the production style where used."""
    if not lines:
        return ""
    styles = [f"  {PRODUCTION}"] if any(view.production for view in views) else []
    return "\n".join(["flowchart LR", *lines, *styles]) + "\n"


def _node(lines: Sequence[str], production: bool = False) -> str:
    """A node's label of ``lines`` (escaped, one per line), styled as production if so."""
    text = "<br/>".join(label(line) for line in lines)
    return f'["{text}"]' + (":::production" if production else "")


def _env_title(view: EnvView) -> str:
    return f"{view.name} (production)" if view.production else view.name


def _cluster_nodes(view: EnvView, engines: Mapping[str, str]) -> list[list[str]]:
    """The lines of each cluster node of ``view``: a node per cluster, or past `MAX_NODES` a
    node per wave and engine counting its clusters."""
    if len(view.clusters) <= MAX_NODES:
        return [[name, engines.get(name, "—")] for name in view.clusters]
    groups = [(w.title, w.clusters) for w in view.waves] or [("", view.clusters)]
    nodes = []
    for title, clusters in groups:
        by_engine: dict[str, int] = {}
        for name in clusters:
            engine = engines.get(name, "—")
            by_engine[engine] = by_engine.get(engine, 0) + 1
        for engine, count in sorted(by_engine.items()):
            nodes.append([line for line in (title, _count(count), engine) if line])
    return nodes


def _names(clusters: Sequence[str]) -> list[str]:
    return list(clusters) if len(clusters) <= MAX_NAMES else [_count(len(clusters))]


def _count(count: int) -> str:
    return f"{count} cluster" + ("" if count == 1 else "s")


def _selector(labels: Mapping[str, str]) -> str:
    return ", ".join(f"{key}={value}" for key, value in sorted(labels.items()))
