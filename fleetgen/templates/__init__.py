"""Jinja2 templates shipped with fleetgen (scaffolding, reports); loaded via importlib.resources."""
