"""`backchannel check`: run a scenario against a client (or a server), record it, judge it, print the report."""
