"""Checks of `elicitation-sep1036-url-mode`: a server's URL-mode elicitation, judged from what backchannel's scripted
client sent it and what it answered (seed 004, server half)."""

SCENARIO = "elicitation-sep1036-url-mode"
