"""The oracle side of `echo-once`."""

SCENARIO = "echo-once"
