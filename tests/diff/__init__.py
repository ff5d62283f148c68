"""Tests of fleetgen.diffs."""
