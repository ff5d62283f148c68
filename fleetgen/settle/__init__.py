"""settle: what output needs of the builds before it (draining removals, moves, instance handover,
chart stamps)."""
