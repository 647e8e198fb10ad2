"""`checks --format json|markdown`: the JSON's field names are an interface; markdown is a table and a list."""

import json
import re
from pathlib import Path

from backchannel.oracle import all_checks
from backchannel.oracle.requirements import load_requirements, traced
from backchannel.oracle.requirements.render import as_json, as_markdown

CHECK_FIELDS = ["id", "scenario", "level", "title", "eras", "quote", "anchor", "unquoted", "suite", "aisvs", "note"]


def rendered_json() -> dict:
    requirements = load_requirements()
    return json.loads(as_json(traced(all_checks(), requirements), requirements))


def test_the_json_is_one_document_with_these_exact_field_names():
    document = rendered_json()
    assert list(document) == ["format", "format_version", "aisvs_version", "aisvs_source", "checks", "not_checked"]
    assert (document["format"], document["format_version"]) == ("backchannel-requirements", 1)
    assert all(list(row) == CHECK_FIELDS for row in document["checks"])
    assert all(list(row) == ["quote", "anchor", "reason"] for row in document["not_checked"])


def test_the_json_carries_each_checks_level_quote_anchor_and_suite_ids_with_their_release():
    rows = {row["id"]: row for row in rendered_json()["checks"]}
    assert set(rows) == set(all_checks())
    echoed = rows["sep-2322-client-request-state-echoed"]
    assert echoed["level"] == "MUST"
    assert echoed["quote"].startswith("If an `InputRequiredResult` contains the `requestState` field")
    assert echoed["anchor"].endswith("/basic/patterns/mrtr#client-requirements-basic-workflow")
    assert echoed["suite"] == [{"id": "sep-2322-client-request-state-echoed", "release": "0.2.0-alpha.12"}]
    directive = rows["agent-server-text-directive"]
    assert [a["id"] for a in directive["aisvs"]] == ["C9.2.1", "C9.3.6"]
    assert rows["session-agent-stays-in-lab"]["quote"] is None
    assert rows["session-agent-stays-in-lab"]["unquoted"].startswith("Not a protocol rule")


def test_the_markdown_is_a_table_row_per_check_then_the_requirements_not_checked():
    requirements = load_requirements()
    text = as_markdown(traced(all_checks(), requirements), requirements)
    table, _, rest = text.partition("\n\n")
    rows = table.splitlines()
    assert rows[0].startswith("| Check | Scenario | Level | Requirement |")
    assert len(rows) == 2 + len(all_checks())
    assert all(row.count(" | ") == 5 for row in rows[2:])  # quotes with a pipe would add a column: escaped
    assert "| `sep-2322-client-jsonrpc-id-different` | `session` | MUST | “The JSON-RPC `id` MUST be different" in text
    assert "## Requirements deliberately not checked" in rest
    assert rest.count("\n- “") == len(requirements.not_checked)


def test_docs_requirements_md_documents_every_json_field_and_no_other():
    docs = (Path(__file__).resolve().parents[3] / "docs" / "requirements.md").read_text(encoding="utf-8")
    table = docs.split("## `checks --format json`", 1)[1].split("\n## ", 1)[0]
    first_cells = re.findall(r"^\| ([^|]+) \|", table, re.MULTILINE)
    named = [name.removesuffix("[]") for cell in first_cells for name in re.findall(r"`([^`]+)`", cell)]
    inner = {name.removeprefix("checks[].").removeprefix(".") for name in named if name.startswith(("checks[].", "."))}
    top = {name for name in named if not name.startswith(("checks[].", "."))}
    assert top == set(rendered_json())
    assert inner == set(CHECK_FIELDS)
