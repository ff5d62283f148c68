"""The fleetgen version, recorded in output/.fleetgen/manifest.json, and where its source is."""

VERSION = "0.1.0"
# fleetgen's own Git repository (the README `init` writes links to it).
SOURCE_REPO = "https://github.com/fleetgen/fleetgen.git"
