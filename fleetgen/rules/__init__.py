"""Rules fleetgen checks against, as data and small functions: secret formats, validate's policy
table, what Argo CD names and how it matches a project's patterns, remote bases."""
