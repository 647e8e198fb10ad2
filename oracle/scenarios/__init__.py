"""The oracle side of every built-in scenario: one package each, holding its facts and one file per check.

A scenario package declares `SCENARIO` (its name, the same as its proxy-side package's) and keeps its checks in
a `checks` subpackage; `backchannel.oracle.registry` finds both. Scenarios from elsewhere join through the
`backchannel.scenarios` entry point group or the BACKCHANNEL_SCENARIOS variable (see docs/architecture.md).
"""
