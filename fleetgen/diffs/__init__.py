"""``diff``: review a spec change before it merges (entry point: `fleetgen.diffs.compare.diff`).

- `compare`: compile the spec at two refs and compare what they generate, object by object;
- `sides`: the spec compiled at one ref (its files, placements and facts);
- `notes`: the report's notes on what generated files do not show;
- `refs`: a Git ref's files read in memory, or the working tree;
- `objects`: objects of generated or rendered YAML and their field-level differences;
- `blast`: which clusters, apps, environments and projects a changed object reaches;
- `facts`: what blast reads of each ref and of both (`Facts`, `Side`, `Context`) and returns;
- `placements`: what diff reads of a ref's Plan, cached so that a ref diffed before is not
  resolved again;
- `report`: the report and its JSON contract;
- `formats`: the report as text, markdown (a PR comment) or JSON;
- `render`: ``--render``, kustomize builds of the affected overlays at both refs.

``fleetgen.diffs``, the public function, is `compare.diff`; it shadows this package as an
attribute of ``fleetgen``, so import the modules by their full name.
"""
