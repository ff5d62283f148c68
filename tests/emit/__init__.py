"""Tests of fleetgen.emit."""
