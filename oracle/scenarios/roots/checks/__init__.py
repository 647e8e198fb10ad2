"""One module per check of `roots`."""
