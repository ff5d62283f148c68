"""Low utilities every stage may use: progress, templates, the cache store, output folder
names."""
