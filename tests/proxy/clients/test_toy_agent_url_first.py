"""The toy agent's URL-first builds (toy_agent_url_first.py): the help alone shows no call; the tools show once the
build has the server URL (read from the server's own tools/list), or the call works only after a connect step."""

from __future__ import annotations

from typing import Any

from tests.proxy.clients.conftest import CONTENT, Lab, Ledger, run_agent


def test_the_generated_build_lists_the_servers_own_tools_as_commands_only_once_it_has_the_url(
    lab: Lab, endpoint: Any, ledger: Ledger
) -> None:
    alone = run_agent(lab, "--variant", "url-tools", "--help")
    assert alone.returncode == 0 and "--url URL" in alone.stdout and "get-repo-status" not in alone.stdout
    for ask in (["tools"], ["--help"]):
        listed = run_agent(lab, "--variant", "url-tools", "--url", endpoint.url, *ask)
        assert listed.returncode == 0, listed.stderr
        assert "  get-repo-status " in listed.stdout and "  ask-all " in listed.stdout  # dashed, from tools/list
    done = run_agent(lab, "--variant", "url-tools", "--fix", "result-type", "--url", endpoint.url, "get-repo-status")
    assert done.returncode == 0 and done.stdout.startswith("result: "), done.stderr
    [seen] = ledger.calls
    assert seen.arguments == {"repo": "demo"}
    wrong = run_agent(lab, "--variant", "url-tools", "get-repo-status", "--url", endpoint.url)
    assert wrong.returncode == 2 and "--url URL comes first" in wrong.stderr


def test_the_list_option_build_shows_the_tools_only_in_its_listing_and_calls_one_by_name(
    lab: Lab, endpoint: Any, ledger: Ledger
) -> None:
    alone = run_agent(lab, "--variant", "url-list", "--help")
    assert alone.returncode == 0 and "--list" in alone.stdout and "status" not in alone.stdout.split("options:")[1]
    listed = run_agent(lab, "--variant", "url-list", "--server-url", endpoint.url, "--list")
    assert listed.returncode == 0 and "\n  status " in listed.stdout, listed.stderr
    done = run_agent(lab, "--variant", "url-list", "--fix", "result-type", "--server-url", endpoint.url, "status")
    assert done.returncode == 0 and done.stdout.startswith(f"result: {CONTENT}"), done.stderr
    assert len(ledger.calls) == 1


def test_the_url_help_build_refuses_every_help_until_it_has_the_url_then_shows_a_tools_call_verb(
    lab: Lab, endpoint: Any, ledger: Ledger
) -> None:
    for ask in (["-h"], ["--help"], ["help"]):
        refused = run_agent(lab, "--variant", "url-help", *ask)
        assert refused.returncode == 2 and "the server URL comes first" in refused.stderr
        assert "usage" not in (refused.stdout + refused.stderr).lower()  # nothing that reads as help
    shown = run_agent(lab, "--variant", "url-help", endpoint.url, "--help")
    assert (
        shown.returncode == 0 and "tools-call NAME [ARGS_JSON]" in shown.stdout and '"toy-lab-server"' in shown.stdout
    )
    done = run_agent(lab, "--variant", "url-help", "--fix", "result-type", endpoint.url, "tools-call", "status")
    assert done.returncode == 0 and done.stdout.startswith(f"result: {CONTENT}"), done.stderr
    assert len(ledger.calls) == 1


def test_the_session_build_calls_only_after_connect_and_over_the_session_it_kept(
    lab: Lab, endpoint: Any, ledger: Ledger
) -> None:
    early = run_agent(lab, "--variant", "connect", "--fix", "result-type", "call", "status")
    assert early.returncode == 1 and "not connected" in early.stderr and not ledger.calls
    opened = run_agent(lab, "--variant", "connect", "connect", endpoint.url)
    assert opened.returncode == 0 and "connected to toy-lab-server" in opened.stdout, opened.stderr
    assert (lab.home / ".backchannel-toy-agent" / "session.json").is_file()
    done = run_agent(lab, "--variant", "connect", "--fix", "result-type", "call", "status")
    assert done.returncode == 0 and done.stdout.startswith(f"result: {CONTENT}"), done.stderr
    assert len(ledger.calls) == 1
    run_agent(lab, "--variant", "connect", "disconnect")
    again = run_agent(lab, "--variant", "connect", "--fix", "result-type", "call", "status")
    assert again.returncode == 1 and len(ledger.calls) == 1
