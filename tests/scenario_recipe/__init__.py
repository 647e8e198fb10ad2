"""Scenarios defined outside backchannel, the way a user adds one: see docs/architecture.md."""
