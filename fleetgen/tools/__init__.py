"""External tools fleetgen runs: kustomize, Helm (in-process), and the render cache over them."""
