"""Checks of `elicitation-sep1036-url-mode`: a server's URL-mode elicitation, judged from what backchannel's scripted
client sent it and what it answered (seed 004, server half)."""

SCENARIO = "elicitation-sep1036-url-mode"
STAGED = "client"  # the side backchannel plays here: session rules judge only the other (the server)
