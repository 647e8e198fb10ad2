"""One file per check of the `sampling` scenario."""
