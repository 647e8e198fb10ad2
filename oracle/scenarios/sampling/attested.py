"""The questions of sampling by hand (`check --by-hand --scenario sampling`): their ids, declared once, where the lab
(proxy/byhand/plans.py) asks them and the checks read them. How an answer is judged is oracle/by_hand.py's."""

from __future__ import annotations

# asked once the host has answered summarize_notes's sampling request (its run: the scenario's `contract`)
DENIABLE = "sampling-deniable-before-sent"
NAMES_SERVER = "sampling-names-requesting-server"
RUNS = ("contract",)
