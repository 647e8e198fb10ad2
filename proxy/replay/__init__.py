"""Replaying the server side of a recorded run to a live client, and recording that replay through the proxy."""
