"""YAML and Kubernetes objects: the one YAML writer and reader, Go-safe scalars, object identity."""
