"""The canned queries answer on real recordings, in a real (in-process) Datasette opened immutable."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import datasette.app as datasette_app  # the explore extra: scripts/bootstrap installs it
import pytest

from backchannel.proxy.explore.metadata import QUERIES, datasette_metadata
from backchannel.recordings import load

REFERENCE = Path(__file__).resolve().parents[3] / "recordings" / "reference"
FLAWED = REFERENCE / "mrtr-provenance-toy-flawed.sqlite"


def ask(recording: Path, path: str) -> Any:
    async def fetch() -> Any:
        ds = datasette_app.Datasette(
            immutables=[str(recording)], metadata=datasette_metadata(recording.stem, recording.name)
        )
        response = await ds.client.get(path)
        assert response.status_code == 200, response.text
        return response.json()

    return asyncio.run(fetch())


def test_the_metadata_describes_the_tables_and_offers_three_canned_queries():
    meta = datasette_metadata("rec", "rec.sqlite")
    database = meta["databases"]["rec"]
    assert set(database["queries"]) == {"run_timeline", "mutated_messages", "terminal_around_evidence"}
    assert "JSON-RPC" in database["tables"]["messages"]["description"]
    assert database["tables"]["messages"]["columns"]["mutation"]


def test_the_timeline_of_a_run_interleaves_its_messages_terminal_and_anomalies_in_time_order():
    rec = load(FLAWED)
    probe = next(run for run in rec.runs if run.name == "probe")
    rows = ask(FLAWED, f"/{FLAWED.stem}/run_timeline.json?_shape=array&run_id={probe.id}")
    assert {row["source"] for row in rows} >= {"message", "terminal"}
    assert [row["t"] for row in rows] == sorted(row["t"] for row in rows)
    assert len([row for row in rows if row["source"] == "message"]) == len(
        [m for m in rec.messages if m.run_id == probe.id]
    )


def test_the_messages_a_mutation_changed_show_what_the_server_sent_and_what_the_client_saw():
    rows = ask(FLAWED, f"/{FLAWED.stem}/mutated_messages.json?_shape=array")
    mutated = [m for m in load(FLAWED).messages if m.mutation]
    assert [row["seq"] for row in rows] == [m.seq for m in mutated]
    injected = next(row for row in rows if row["mutation"] == "inject-input-requests")
    assert '"resultType":"complete"' in injected["sent_by_server"]
    assert "input_required" in injected["seen_by_client"]
    assert "inject-input-requests" in injected["records"]


def test_the_terminal_lines_around_evidence_are_the_chunks_near_its_offset():
    rec = load(FLAWED)
    chunk = next(c for c in rec.terminal if c.stream == "stdout" and b"BCKCH-BODY" in c.data)
    offset = chunk.offset + chunk.data.index(b"BCKCH-BODY")
    query = f"run_id={chunk.run_id}&stream=stdout&offset={offset}"
    rows = ask(FLAWED, f"/{FLAWED.stem}/terminal_around_evidence.json?_shape=array&{query}")
    assert chunk.offset in [row["offset"] for row in rows]
    assert all(row["end_offset"] > offset - 512 and row["offset"] < offset + 512 for row in rows)
    assert "BCKCH-BODY" in "".join(row["text"] for row in rows)


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_every_canned_query_answers_on_an_elicitation_recording_too(name):
    rec_path = REFERENCE / "elicitation-url-mode-py-sdk.sqlite"
    run = load(rec_path).runs[0]
    params = f"run_id={run.id}&stream=stdout&offset=0"
    rows = ask(rec_path, f"/{rec_path.stem}/{name}.json?_shape=array&{params}")
    assert isinstance(rows, list)
