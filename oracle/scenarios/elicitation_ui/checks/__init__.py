"""One module per check of `elicitation-ui`."""
