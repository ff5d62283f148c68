"""write: the single writer of output/ (ownership manifest, journal, atomic replace, --check)."""
