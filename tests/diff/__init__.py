"""Tests of fleetgen.diff."""
