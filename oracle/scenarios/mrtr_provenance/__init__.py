"""The `mrtr-provenance` probe, judged: provenance of server text, the resultType default, the requesting server."""

SCENARIO = "mrtr-provenance"
STAGED = "server"  # the side backchannel plays here: session rules judge only the other
