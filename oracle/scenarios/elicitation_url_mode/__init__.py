"""The `elicitation-url-mode` scenario, judged: URL- and form-mode input requests answered under MRTR."""

SCENARIO = "elicitation-url-mode"
STAGED = "server"  # the side backchannel plays here: session rules judge only the other
