"""One file per check of the `sdk-regressions` scenario."""
