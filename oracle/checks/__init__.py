"""One module per check, found automatically."""
