"""load: run fleet.py and inventory what it reads from the repository (bases, charts, values, the
committed record)."""
