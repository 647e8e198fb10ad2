"""A recording's client: the name and version it announced, and the command line of the run that talked."""

from pathlib import Path

from backchannel.oracle.parties import LONGEST
from backchannel.proxy.matrix.identity import identify
from backchannel.recordings.reader import load
from tests.factories import new_recording
from tests.proxy.matrix.conftest import HOSTILE, REFERENCES


def test_a_client_that_initializes_is_named_by_the_client_info_it_sent():
    client = identify(load(REFERENCES / "mrtr-provenance-fastmcp.sqlite"))
    assert (client.name, client.version, client.label) == ("fastmcp", "4.2.3", "fastmcp 4.2.3")


def test_the_command_shown_is_the_run_that_talked_to_the_server_not_a_help_discovery_run():
    argv = identify(load(REFERENCES / "mrtr-provenance-toy-flawed.sqlite")).argv
    assert argv is not None and "--help" not in argv and "call" in argv


def test_a_2026_07_28_client_is_named_by_the_client_info_in_its_request_meta():
    client = identify(load(REFERENCES / "elicitation-url-mode-py-sdk.sqlite"))
    assert client.label == "backchannel-py-sdk-driver 0.1.0"


def test_a_client_that_never_said_who_it_is_is_an_unknown_client_with_its_command():
    client = identify(load(REFERENCES / "mrtr-provenance-toy-no-call-surface.sqlite"))
    assert client.label == "unknown client" and client.argv


def test_a_name_that_is_not_a_string_is_ignored_and_a_long_one_is_cut(tmp_path: Path):
    def said(info: object, n: int) -> dict[str, object]:
        text = f'{{"jsonrpc":"2.0","id":{n},"method":"initialize","params":{{"clientInfo":{info}}}}}'
        return {"direction": "to-server", "kind": "request", "text": text}

    path = new_recording(
        tmp_path / "names.sqlite", messages=[said('{"name": 7}', 1), said(f'{{"name": "{"x" * 500}{HOSTILE[:8]}"}}', 2)]
    )
    client = identify(load(path))
    assert client.name == "x" * LONGEST + "…" and client.version is None and client.argv is None


def test_a_server_scenarios_column_is_the_server_under_test_named_by_its_results_meta():
    server = identify(load(REFERENCES / "elicitation-sep1036-url-mode-ts-sdk.sqlite"), server_side=True)
    assert (server.name, server.version, server.role, server.argv) == (
        "backchannel-ts-sdk-server",
        "0.1.0",
        "server",
        None,
    )


def test_a_server_that_never_said_who_it_is_is_an_unknown_server(tmp_path: Path):
    server = identify(load(new_recording(tmp_path / "s.sqlite")), server_side=True)
    assert (server.name, server.role) == ("unknown server", "server")
