"""A recording whose messages carry lone surrogates (a peer's JSON "\\ud800": valid JSON, text UTF-8 cannot hold) in
every string the protocol does not fix is judged and rendered like any other: no check raises. Before, a server name
or an elicitation text encoded to look for it on the terminal stopped `judge` with a traceback."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from backchannel.oracle.judge import judge
from backchannel.oracle.render import render
from backchannel.recordings import load

REFERENCES = Path(__file__).resolve().parents[2] / "recordings" / "reference"
FIXED = {"jsonrpc", "method", "mode", "type", "resultType", "action", "protocolVersion", "requestState", "id"}
FIXED |= {"io.modelcontextprotocol/protocolVersion"}


def _with_surrogates(value: Any, key: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: _with_surrogates(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_surrogates(v, key) for v in value]
    return value + "\ud800" if isinstance(value, str) and key not in FIXED else value


def _hostile_copy(name: str, folder: Path) -> Path:
    copy = folder / f"{name}.sqlite"
    shutil.copyfile(REFERENCES / f"{name}.sqlite", copy)
    conn = sqlite3.connect(copy)
    with conn:
        for seq, text in conn.execute("SELECT seq, text FROM messages").fetchall():
            try:
                payload = json.loads(text)
            except ValueError:
                continue
            conn.execute("UPDATE messages SET text = ? WHERE seq = ?", (json.dumps(_with_surrogates(payload)), seq))
    conn.close()
    return copy


@pytest.mark.parametrize(
    "name",
    ["elicitation-ui-agent-claude-code-tty", "elicitation-ui-toy-osc8-links", "sampling-agent-claude-code"],
)
def test_lone_surrogates_in_every_free_string_are_judged_without_a_crash(name: str, tmp_path: Path) -> None:
    report = judge(load(_hostile_copy(name, tmp_path)))
    assert report.results
    for shape in ("json", "text"):
        render(report, shape).encode("utf-8")  # what is printed is UTF-8
