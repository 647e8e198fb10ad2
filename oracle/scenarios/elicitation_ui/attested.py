"""The questions of elicitation-ui and mrtr-provenance by hand (`check --by-hand`): their ids, declared once, where
the lab (proxy/byhand/) asks them and the checks read them. How an answer is judged is oracle/by_hand.py's."""

from __future__ import annotations

from backchannel.oracle.by_hand import BY_HAND_FACT, judge_answers

__all__ = ["BY_HAND_FACT", "NAMES_SERVER", "NOTHING_OPENED", "URL_SHOWN", "judge_answers"]
# the ids the by-hand lab asks its questions under (proxy/byhand/questions.py) and the checks read them by
NAMES_SERVER = "names-requesting-server"
URL_SHOWN = "url-shown-before-consent"
NOTHING_OPENED = "nothing-opened-before-consent"
