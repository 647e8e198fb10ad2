"""Who talked, by the names they gave: clientInfo from a client's requests (initialize or per-request `_meta`),
serverInfo from a server's results (its own `serverInfo` or `_meta`), cut visibly, never taken from the other side."""

from __future__ import annotations

import json
from pathlib import Path

from backchannel.oracle.parties import (
    CUT,
    LONGEST,
    META_CLIENT_INFO,
    META_SERVER_INFO,
    Party,
    client_parties,
    named_clients,
    named_servers,
    server_parties,
)
from backchannel.recordings import load
from tests.factories import new_recording


def _message(direction: str, payload: object) -> dict[str, object]:
    return {"direction": direction, "kind": "request", "text": json.dumps(payload)}


def test_a_client_is_named_by_its_initialize_client_info_then_its_request_meta():
    init = {"method": "initialize", "params": {"clientInfo": {"name": "a", "version": "1"}}}
    call = {"method": "tools/call", "params": {"clientInfo": {"name": "x"}, "_meta": {META_CLIENT_INFO: {"name": "b"}}}}
    assert list(client_parties(init)) == [Party("a", "1")]
    assert list(client_parties(call)) == [Party("b", None)]  # clientInfo counts in initialize only


def test_a_server_is_named_by_its_results_server_info_then_their_meta():
    result = {"result": {"serverInfo": {"name": "s", "version": ""}, "_meta": {META_SERVER_INFO: {"name": "t"}}}}
    assert list(server_parties(result)) == [Party("s", ""), Party("t", None)]


def test_a_name_must_be_text_and_a_long_one_is_cut_visibly():
    long = {"method": "initialize", "params": {"clientInfo": {"name": "n" * 500, "version": 7}}}
    assert list(client_parties(long)) == [Party("n" * LONGEST + CUT, None)]
    for info in ({"name": 7}, {"name": ""}, "fastmcp", None):
        assert list(client_parties({"method": "initialize", "params": {"clientInfo": info}})) == []


def test_each_side_is_named_only_by_what_it_sent_in_order_with_repeats(tmp_path: Path):
    said = {"method": "tools/call", "params": {"_meta": {META_CLIENT_INFO: {"name": "c"}}}}
    answered = {"result": {"_meta": {META_SERVER_INFO: {"name": "s", "version": "2"}}}}
    path = new_recording(
        tmp_path / "r.sqlite",
        messages=[
            _message("to-server", said),
            _message("to-client", said),  # a client's name in what the server sent is not the client's word
            _message("to-client", answered),
            _message("to-server", said),
            _message("to-server", answered),
        ],
    )
    rec = load(path)
    assert list(named_clients(rec)) == [Party("c", None), Party("c", None)]
    assert list(named_servers(rec)) == [Party("s", "2")]
