"""`backchannel check --by-hand`: a scenario as a long-lived lab behind one stable URL, for a host a person drives."""
