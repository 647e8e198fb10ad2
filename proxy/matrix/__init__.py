"""`backchannel matrix`: a static site of clients × checks from recordings, one page per case with its evidence."""
