"""Discovery live: `check mrtr-provenance --target` against each call-surface shape of the toy agent, through the real
proxy; the recording names the invocation found, the ledger's tools/call confirms it, and rejections keep their reason.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from backchannel.proxy.run.discovery import NO_CALL, describe
from backchannel.proxy.run.steps import steps_argv
from backchannel.proxy.scenarios.base import CheckOptions
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load
from backchannel.recordings.model import Recording
from backchannel.recordings.shapes import Discovery as DiscoveryRecord

pytestmark = pytest.mark.live

TOY = (sys.executable, "-m", "backchannel.proxy.clients.toy_agent")
TOOL = "get_repo_status"
HTTP = ("{url}", "--method", "tools/call", "--tool-name", TOOL)
# each variant (its shape) -> the invocation discovery must find, after `TOY --variant NAME`
FOUND = {
    "method-verb": ("tools/call", "{url}", TOOL),  # 2: a tools/call method verb, the URL positional
    "method-flags": (*HTTP, "--transport", "http"),  # 3: the Inspector's flag pair, --transport http as the extra
    "tool-subcommands": ("get-repo-status", "--endpoint", "{url}"),  # 4: a kebab-case command per tool; --endpoint
    "tool-option": ("invoke", "--url", "{url}", "--tool", TOOL),  # 5: --tool on a command; 6: --url
    "server-flag": ("mcp", "call", "--server", "{url}", TOOL),  # 1 and 6: a call subcommand taking --server
    "long-help": ("invoke", "--url", "{url}", "--tool", TOOL),  # 7: -h exits 2, --help answers
    "short-help": ("invoke", "--url", "{url}", "--tool", TOOL),  # 7: --help exits 2, -h answers
    # URL first: the commands are the server's tools, shown by the help once --url is given
    "url-tools": ("--url", "{url}", "get-repo-status"),
    # URL first: the tools show only in the output of --list, run after --server-url
    "url-list": ("--server-url", "{url}", TOOL),
    # URL first: -h, --help and help all fail until the URL is given; `URL --help` shows a tools-call verb
    "url-help": ("{url}", "tools-call", TOOL),
}


def discovered(tmp_path: Path, variant: str) -> tuple[Recording, DiscoveryRecord]:
    out = tmp_path / f"{variant}.sqlite"
    options = CheckOptions(out=out, target=[*TOY, "--variant", variant, "--fix", "result-type"], timeout=20)
    run_check("mrtr-provenance", options, progress=lambda _text: None)
    rec = load(out)
    record = DiscoveryRecord.read(rec.meta)
    assert record is not None
    return rec, record


Discovered = Callable[[str], tuple[Recording, DiscoveryRecord]]


@pytest.fixture(scope="module")
def discovery(tmp_path_factory: pytest.TempPathFactory) -> Discovered:
    """`discovered`, run once per variant per module (and worker): tests that read the same variant's recording
    share its run (each asserts its own part of it)."""
    seen: dict[str, tuple[Recording, DiscoveryRecord]] = {}

    def run(variant: str) -> tuple[Recording, DiscoveryRecord]:
        if variant not in seen:
            seen[variant] = discovered(tmp_path_factory.mktemp(variant), variant)
        return seen[variant]

    return run


def confirmed_by_the_ledger(rec: Recording, record: DiscoveryRecord) -> bool:
    """The discovery-call run of the winning candidate (runs are made in the order tried) sent a tools/call."""
    calls = [r for r in rec.runs if r.name == "discovery-call"]
    assert len(calls) == len(record.tried)
    winner = calls[record.tried.index(record.invocation)] if record.invocation in record.tried else None
    return winner is not None and any(
        m.method == "tools/call" and m.direction == "to-server" for m in rec.messages_in(winner.id)
    )


@pytest.mark.parametrize("variant", sorted(FOUND))
def test_discovery_finds_each_shape_and_the_ledger_confirms_it(discovery: Discovered, variant: str) -> None:
    rec, record = discovery(variant)
    base = (*TOY, "--variant", variant, "--fix", "result-type")
    assert record.status == "found"
    assert record.invocation == (*base, *FOUND[variant])
    assert confirmed_by_the_ledger(rec, record)
    assert any(r.name == "control" for r in rec.runs)  # the probe went on with the invocation found


def test_rejected_candidates_and_their_reasons_are_in_the_recording(discovery: Discovered) -> None:
    rec, record = discovery("method-flags")
    base = (*TOY, "--variant", "method-flags", "--fix", "result-type")
    sse = (*base, *HTTP)  # the toy's default transport is SSE, which it cannot speak: exit 1, nothing reached
    assert record.tried == (sse, (*sse, "--transport", "http"))
    assert record.rejected == ((sse, f"exit 1, {NO_CALL}"),)
    assert confirmed_by_the_ledger(rec, record)
    lines = describe(record)
    assert lines[0] == "discovery: found the call surface" and f"(exit 1, {NO_CALL})" in lines[3]


def test_a_cli_with_no_call_surface_is_still_skipped(tmp_path: Path) -> None:
    rec, record = discovered(tmp_path, "no-call-surface")
    assert (record.status, record.candidates, record.rejected) == ("no-mcp-call-surface", (), ())
    assert not [r for r in rec.runs if r.name == "discovery-call"]


def test_a_cli_that_needs_a_connect_step_is_called_through_both_steps_and_the_ledger_confirms_it(
    tmp_path: Path,
) -> None:
    rec, record = discovered(tmp_path, "connect")
    base = (*TOY, "--variant", "connect", "--fix", "result-type")
    assert record.status == "found"
    assert record.invocation == steps_argv((*base, "connect", "{url}"), (*base, "call", TOOL))
    assert record.tried[0] == record.invocation  # the two-step candidate is tried first, before guessing a URL
    assert confirmed_by_the_ledger(rec, record)
    control = next(r for r in rec.runs if r.name == "control")
    assert control.exit_code is not None  # the probe ran both steps each run, in that run's own lab
    assert any(m.method == "tools/call" for m in rec.messages_in(control.id))


def test_url_first_probes_are_runs_of_their_own_and_each_list_command_ran_after_the_url(
    discovery: Discovered,
) -> None:
    rec, record = discovery("url-list")
    assert record.status == "found"
    base = [*TOY, "--variant", "url-list", "--fix", "result-type"]
    listing = next(r for r in rec.runs if r.name == "discovery-help" and list(r.client_argv or ())[-1:] == ["--list"])
    assert list(listing.client_argv or ()) == [*base, "--server-url", f"{listing.detail.url}", "--list"]
    assert any(m.method == "tools/list" for m in rec.messages_in(listing.id))  # it read the endpoint's own tools
