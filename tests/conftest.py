"""Suite-wide settings: Hypothesis profiles.

The suite runs the `suite` profile (fewer examples, so the offline tests stay fast); set HYPOTHESIS_PROFILE=thorough
for a deeper search before a release or after touching a parser. Tests that pin their own `max_examples` keep it.
"""

import os

from hypothesis import settings

settings.register_profile("suite", max_examples=50)
settings.register_profile("thorough", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))
