"""Coding agents as the client under test: their recipes (how each runs offline in a lab) and what a run needs."""
