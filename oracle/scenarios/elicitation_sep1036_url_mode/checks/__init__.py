"""One module per check of the server scenario `elicitation-sep1036-url-mode`."""
