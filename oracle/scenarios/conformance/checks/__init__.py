"""One file per check of the `conformance` scenario."""
