"""End-to-end tests: fleetgen's output applied to the real Argo CD and Flux, on loopback.

They need the programs `scripts/e2e-tools` builds; `bash scripts/e2e` builds what is missing and
runs them. The default suite does not collect this folder.
"""
