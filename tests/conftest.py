"""Suite-wide settings: Hypothesis profiles.

The suite runs the `suite` profile (fewer examples, so the offline tests stay fast); set HYPOTHESIS_PROFILE=thorough
for a deeper search before a release or after touching a parser. Tests that pin their own `max_examples` keep it.
"""

import os

import pytest
from hypothesis import settings

settings.register_profile("suite", max_examples=50)
settings.register_profile("thorough", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


LIVE_FOLDERS = ("e2e", "proxy")  # these start processes: the endpoint, mitmdump, real clients, the CLI


def pytest_collection_modifyitems(items: list) -> None:
    """Mark every test under tests/e2e and tests/proxy `live`, so `-m 'not live'` runs only the offline tests."""
    root = os.path.dirname(__file__)
    for item in items:
        parts = os.path.relpath(str(item.path), root).split(os.sep)
        if parts[0] in LIVE_FOLDERS:
            item.add_marker(pytest.mark.live)
