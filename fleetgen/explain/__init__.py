"""fleetgen explain: where apps run and why."""
