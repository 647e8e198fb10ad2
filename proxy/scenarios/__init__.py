"""Scenarios, proxy side: one package each (`<name>/__init__.py` defines `SCENARIO`); `base` and `registry` serve them.

See docs/architecture.md for the recipe: a scenario is this folder plus its twin under oracle/scenarios/.
"""
