"""The fleetgen version, recorded in output/.fleetgen/manifest.json."""

VERSION = "0.1.0"
