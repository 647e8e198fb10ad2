"""The Datasette metadata for one recording: the format's descriptions and the canned queries people need."""

from __future__ import annotations

from typing import Any

from backchannel.recordings.descriptions import COLUMNS, TABLES

TERMINAL_WINDOW = 512  # bytes either side of an evidence offset: the lines around it, not the whole stream

# every query names its columns, so a recording from an older format fails one query, never shows wrong data
TIMELINE_SQL = """
SELECT t, 'message' AS source, seq, direction AS channel, kind, method, mutation, text AS content
  FROM messages WHERE run_id = :run_id
UNION ALL
SELECT t, 'sse', seq, origin, kind, NULL, NULL, CAST(client_raw AS TEXT) FROM sse_events WHERE run_id = :run_id
UNION ALL
SELECT t, 'terminal', seq, stream, NULL, NULL, NULL, CAST(data AS TEXT) FROM terminal WHERE run_id = :run_id
UNION ALL
SELECT t, 'anomaly', seq, NULL, kind, NULL, NULL, detail FROM anomalies WHERE run_id = :run_id
ORDER BY t, source, seq
""".strip()

MUTATED_MESSAGES_SQL = """
SELECT m.seq, runs.name AS run, m.run_id, m.direction, m.method, m.mutation,
       m.upstream_text AS sent_by_server, m.text AS seen_by_client, exchanges.mutations AS records
  FROM messages AS m
  LEFT JOIN runs ON runs.id = m.run_id
  LEFT JOIN exchanges ON exchanges.flow_id = m.flow_id
 WHERE m.mutation IS NOT NULL
 ORDER BY m.seq
""".strip()

TERMINAL_AROUND_SQL = f"""
SELECT seq, stream, "offset", "offset" + length(data) AS end_offset, t, CAST(data AS TEXT) AS text
  FROM terminal
 WHERE run_id = :run_id AND stream = :stream
   AND "offset" + length(data) > CAST(:offset AS INTEGER) - {TERMINAL_WINDOW}
   AND "offset" < CAST(:offset AS INTEGER) + {TERMINAL_WINDOW}
 ORDER BY "offset"
""".strip()

QUERIES: dict[str, dict[str, str]] = {
    "run_timeline": {
        "title": "Timeline of a run",
        "description": "Messages, SSE items, terminal output and anomalies of one run (runs.id), in time order.",
        "sql": TIMELINE_SQL,
    },
    "mutated_messages": {
        "title": "Messages a mutation changed",
        "description": "Every message backchannel changed or made: what the server sent, what the client saw, and "
        "the exchange's mutation records.",
        "sql": MUTATED_MESSAGES_SQL,
    },
    "terminal_around_evidence": {
        "title": "Terminal lines around evidence",
        "description": f"The terminal chunks within {TERMINAL_WINDOW} bytes of an evidence offset (a report's "
        "terminal evidence gives run, stream and offset).",
        "sql": TERMINAL_AROUND_SQL,
    },
}


def datasette_metadata(database: str, source: str) -> dict[str, Any]:
    """Metadata for `datasette serve --metadata`: `database` is the name Datasette gives the file (its stem)."""
    tables = {
        name: {"description": TABLES[name], "columns": dict(COLUMNS.get(name, {}))}
        for name in TABLES  # a table the file lacks is simply not shown; its metadata does no harm
    }
    return {
        "title": f"backchannel recording {source}",
        "description": "Opened read-only (immutable). Canned queries: run_timeline, mutated_messages, "
        "terminal_around_evidence.",
        "databases": {database: {"tables": tables, "queries": QUERIES}},
    }
