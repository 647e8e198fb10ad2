"""Pure judgments over recordings: no clock, no network, no mitmproxy."""
