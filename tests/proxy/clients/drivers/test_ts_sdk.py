"""The TypeScript SDK v2 driver follows the same contract as the Python one, against the same scripted endpoint.

It needs `scripts/install-clients`. Without it the tests skip on a developer machine and fail under CI (CI set),
because CI installs the clients and a silent skip there would hide a broken install.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from backchannel.proxy.clients.drivers.paths import node_driver, repo_root
from tests.proxy.clients.drivers.test_py_sdk import (
    FORM_ANSWER,
    ContractEndpoint,
    DriverRun,
    answers,
    assert_declares_elicitation_only,
    assert_decline_prefix_declines,
    assert_each_round_asks_again_and_echoes_the_newest_state,
    assert_every_tool_called_once,
    assert_forged_fence_end_stays_inside,
    assert_form_answered_with_confirmed,
    assert_mcp_error_reported_and_exit_1,
    assert_minus_32042_shown_and_retried_once,
    assert_modeless_is_form,
    assert_rendering_is_attributed_and_fenced,
    assert_stdio_contract,
    assert_url_accepted_without_content_and_never_opened,
    bridge_argv_json,
    contract_endpoint,
    required_endpoint,
    run_driver,
)


def ts_driver() -> list[str]:
    found = node_driver()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("the TypeScript SDK driver is not installed; CI must run scripts/install-clients first")
        pytest.skip("the TypeScript SDK driver is not installed (run scripts/install-clients)")
    return found


def test_the_installed_driver_is_the_one_in_the_repository():
    # install-clients copies the script next to its node_modules; an edit not re-installed would test a stale copy
    installed = Path(ts_driver()[1])
    root = repo_root()
    assert root is not None
    source = root / "proxy" / "clients" / "drivers" / "node" / "ts_sdk.mjs"
    assert installed.read_bytes() == source.read_bytes(), "stale copy: run scripts/install-clients again"


@pytest.fixture(scope="module")
def all_tools() -> Iterator[tuple[ContractEndpoint, DriverRun]]:
    """One driver run over every tool of the contract scenario, with `--mode auto` (the driver's default)."""
    driver = ts_driver()
    with contract_endpoint() as endpoint:
        yield endpoint, run_driver([*driver, endpoint.url, "--mode", "auto"])


def test_the_driver_declares_elicitation_form_and_url_and_not_sampling(all_tools):
    assert_declares_elicitation_only(all_tools[0])


def test_auto_mode_negotiates_2026_07_28(all_tools):
    assert {(c.era, c.protocol_version) for c in all_tools[0].seen} == {("modern", "2026-07-28")}


def test_a_form_request_is_answered_accept_with_confirmed_true_on_the_retry(all_tools):
    assert_form_answered_with_confirmed(*all_tools)


def test_a_url_request_is_accepted_without_content_and_the_url_is_never_opened(all_tools):
    assert_url_accepted_without_content_and_never_opened(all_tools[0])


def test_a_url_request_whose_message_starts_with_decline_is_declined(all_tools):
    assert_decline_prefix_declines(all_tools[0])


def test_a_request_without_mode_is_answered_as_form(all_tools):
    assert_modeless_is_form(all_tools[0])


def test_a_request_without_mode_but_with_a_stray_url_is_answered_as_form(all_tools):
    # unlike the Python SDK, whose types read this request as URL mode (see test_py_sdk.py)
    assert answers(all_tools[0].calls("modeless_with_url"))[1] == ("modeless_with_url-1", {"ask": FORM_ANSWER})


def test_every_round_goes_back_to_the_handler_and_echoes_the_newest_request_state(all_tools):
    assert_each_round_asks_again_and_echoes_the_newest_state(all_tools[0])


def test_the_elicitation_is_rendered_naming_the_server_and_its_origin_inside_a_fence(all_tools):
    assert_rendering_is_attributed_and_fenced(*all_tools)


def test_server_text_cannot_close_the_fence_early(all_tools):
    assert_forged_fence_end_stays_inside(all_tools[1])


def test_every_listed_tool_is_called_once(all_tools):
    assert_every_tool_called_once(*all_tools)


def test_an_mcp_error_is_printed_as_code_and_message_and_the_exit_code_is_1(all_tools):
    assert_mcp_error_reported_and_exit_1(all_tools[1])


def test_the_sdk_default_legacy_mode_speaks_the_2025_11_25_handshake():
    driver = ts_driver()
    with contract_endpoint() as endpoint:
        run = run_driver([*driver, endpoint.url, "--tool", "plain", "--mode", "legacy"])
    assert (run.exit_code, run.stderr) == (0, "")
    assert run.results() == {"plain": "plain done: null"}
    assert [(c.era, c.protocol_version) for c in endpoint.seen] == [("legacy", "2025-11-25")]


def test_pin_mode_speaks_2026_07_28_without_a_fallback():
    driver = ts_driver()
    with contract_endpoint() as endpoint:
        run = run_driver([*driver, endpoint.url, "--tool", "plain", "--mode", "pin"])
    assert (run.exit_code, run.stderr) == (0, "")
    assert [(c.era, c.protocol_version) for c in endpoint.seen] == [("modern", "2026-07-28")]


def test_an_unreachable_server_is_one_error_line_and_exit_1():
    driver = ts_driver()
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    run = run_driver([*driver, f"http://127.0.0.1:{port}/mcp"])
    assert run.exit_code == 1
    assert run.stderr.startswith("error: ") and len(run.stderr.splitlines()) == 1


def test_a_usage_error_exits_2():
    run = run_driver([*ts_driver(), "--mode"])
    assert run.exit_code == 2
    assert "usage: node ts_sdk.mjs" in run.stderr


# ---- stdio mode: the SDK's StdioClientTransport spawns `backchannel bridge URL`, and the contract is unchanged ----


@pytest.fixture(scope="module")
def all_tools_over_stdio() -> Iterator[tuple[ContractEndpoint, DriverRun]]:
    driver = ts_driver()
    with contract_endpoint() as endpoint:
        yield endpoint, run_driver([*driver, "--stdio-argv", bridge_argv_json(endpoint.url), "--mode", "auto"])


def test_stdio_mode_follows_the_whole_contract_through_the_bridge(all_tools_over_stdio):
    assert_stdio_contract(*all_tools_over_stdio)


def test_stdio_mode_auto_negotiates_2026_07_28(all_tools_over_stdio):
    assert {(c.era, c.protocol_version) for c in all_tools_over_stdio[0].seen} == {("modern", "2026-07-28")}


def test_stdio_mode_answers_a_stray_url_as_form_like_the_http_mode(all_tools_over_stdio):
    assert answers(all_tools_over_stdio[0].calls("modeless_with_url"))[1] == (
        "modeless_with_url-1",
        {"ask": FORM_ANSWER},
    )


def test_stdio_mode_legacy_speaks_the_2025_11_25_handshake_through_the_bridge():
    driver = ts_driver()
    with contract_endpoint() as endpoint:
        run = run_driver(
            [*driver, "--stdio-argv", bridge_argv_json(endpoint.url), "--tool", "plain", "--mode", "legacy"]
        )
    assert (run.exit_code, run.stderr) == (0, "")
    assert run.results() == {"plain": "plain done: null"}
    assert [(c.era, c.protocol_version) for c in endpoint.seen] == [("legacy", "2025-11-25")]


@pytest.mark.parametrize(
    "args",
    [
        ["--stdio-argv", "not json"],
        ["--stdio-argv", "[]"],
        ["--stdio-argv", '["ok", 1]'],
        ["http://127.0.0.1:1/mcp", "--stdio-argv", '["x"]'],
        ["--stdio-argv"],
    ],
)
def test_a_bad_or_doubled_server_choice_is_a_usage_error(args):
    run = run_driver([*ts_driver(), *args])
    assert run.exit_code == 2
    assert "usage: node ts_sdk.mjs" in run.stderr


def test_a_minus_32042_has_its_url_shown_and_the_call_retried_once():
    with required_endpoint() as (running, seen):
        run = run_driver([*ts_driver(), running.url, "--tool", "export", "--mode", "legacy"])
    assert_minus_32042_shown_and_retried_once(run, seen)
