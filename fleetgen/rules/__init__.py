"""Rules fleetgen checks against, as data and small functions: secret formats, validate's policy
table, Argo CD's project matching, remote bases."""
