"""`backchannel explore FILE`: a recording opened in Datasette (the optional `backchannel[explore]` extra)."""
