"""The `mrtr-provenance` probe, judged: provenance of server text, the resultType default, the requesting server."""

SCENARIO = "mrtr-provenance"
