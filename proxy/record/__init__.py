"""`backchannel record`: record a client's traffic through the proxy (the recording itself: proxy/run/record.py)."""
