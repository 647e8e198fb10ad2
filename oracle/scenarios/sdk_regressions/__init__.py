"""Checks of `sdk-regressions`: bugs real SDKs shipped, each staged so a client that has it is seen to (declined
content reused in a later accept, an MRTR loop retried without end, a request in an undeclared mode declined as
though its user had declined)."""

SCENARIO = "sdk-regressions"
STAGED = "server"  # the side backchannel plays here: session rules judge only the other
