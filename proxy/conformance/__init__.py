"""The cross-check against the official MCP conformance suite: its client scenarios and backchannel's, run against
the same SDK drivers, verdicts compared per shared check id (`parity`, which writes docs/conformance-parity.md).

`suite` runs the installed suite, `check_run` runs `backchannel check`, `verdicts` compares (pure), `reasons` holds
the hand-written, spec-quoting reasons for each known difference.
"""
