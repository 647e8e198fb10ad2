"""`echo-once`: the smallest scenario there is. It lives only here and is found through BACKCHANNEL_SCENARIOS."""
