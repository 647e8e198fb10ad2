"""The requirements registry: every check traced to the sentence it tests (`requirements.toml`, read strictly).

`load_requirements()` reads the shipped file once; `traced(checks)` joins it with the registered checks (an id
without an entry, or an entry for no check, is an error naming the file and the ids); `requirement_of(check_id)`
is what a matrix case page or REPORT.md links a result to. Pure: no clock, no network, no database.
"""

from __future__ import annotations

from .load import REQUIREMENTS_FILE, load_requirements, parse_requirements, requirement_of
from .model import AisvsRequirement, NotChecked, Requirement, Requirements, RequirementsError, SuiteCheck
from .traced import TracedCheck, traced

__all__ = [
    "REQUIREMENTS_FILE",
    "AisvsRequirement",
    "NotChecked",
    "Requirement",
    "Requirements",
    "RequirementsError",
    "SuiteCheck",
    "TracedCheck",
    "load_requirements",
    "parse_requirements",
    "requirement_of",
    "traced",
]
