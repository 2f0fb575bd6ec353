"""Test configuration shared by every stage's checks.

Hypothesis profiles: `ci` (the default) is derandomized and keeps no example database, so a
run gives the same examples on every machine; `mutation` trades examples for speed when the
mutation runner runs a check many times. Choose one with HYPOTHESIS_PROFILE.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.register_profile(
    "mutation", derandomize=True, database=None, deadline=None, max_examples=20
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
