"""Tests of fleetgen.scaffold."""
