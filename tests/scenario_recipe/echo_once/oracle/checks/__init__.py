"""One file per check."""
