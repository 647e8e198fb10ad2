"""The endpoint's wait for a 2025 answer is tied to --timeout: a client that declares elicitation and never answers
the request it is sent gets the endpoint's own tool error, and ends by itself, before the run's timeout kills it."""

import sys
import textwrap

import pytest

from backchannel.oracle import judge
from backchannel.oracle.scenarios.elicitation_ui import payloads
from backchannel.oracle.terminal import raw_bytes
from backchannel.proxy.endpoint.tools import answer_wait
from backchannel.proxy.scenarios.base import CheckOptions
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load

# a 2025-06-18 client on the wire: declares elicitation, calls one tool, reads its stream to the end and never
# answers the server-initiated request on it; its own read waits far longer than the run may take
NEVER_ANSWERS = textwrap.dedent(
    """
    import json, sys, urllib.request
    url, tool = sys.argv[1], sys.argv[2]
    def post(message, session=None):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if session:
            headers.update({"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"})
        request = urllib.request.Request(url, json.dumps(message).encode(), headers)
        return urllib.request.urlopen(request, timeout=300)
    init = {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "never-answers", "version": "1"}}
    with post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}) as response:
        session = response.headers["Mcp-Session-Id"]
        response.read()
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session).read()
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": {}}}
    with post(call, session) as response:
        sse = response.headers.get("Content-Type", "").startswith("text/event-stream")
        lines = (line[5:] for line in response if line.startswith(b"data:")) if sse else [response.read()]
        for line in lines:
            message = json.loads(line)
            if "method" in message:
                print("asked", message["method"], "and not answering", flush=True)
            elif message.get("id") == 2:
                print("the tool said:", message["result"]["content"][0]["text"], flush=True)
    """
)


def test_the_wait_is_half_the_run_timeout():
    assert answer_wait(30) == 15 and answer_wait(8) == 4
    assert CheckOptions(out=None, timeout=12).answer_timeout_s == 6  # type: ignore[arg-type]


@pytest.mark.live
def test_an_unanswered_request_ends_with_the_endpoints_tool_error_before_the_run_timeout(tmp_path):
    script = tmp_path / "never_answers.py"
    script.write_text(NEVER_ANSWERS, encoding="utf-8")
    out = tmp_path / "unanswered.sqlite"
    client = [sys.executable, str(script), "{url}", payloads.FORM_TOOL]
    run_check("elicitation-ui", CheckOptions(out=out, client=client, timeout=8, era="2025-06-18"), lambda _: None)
    rec = load(out)
    [run] = rec.runs
    assert run.outcome != "timeout" and run.exit_code == 0  # the client ended by itself, on the endpoint's answer
    stdout = raw_bytes(rec, run.id, "stdout").decode()
    assert "asked elicitation/create and not answering" in stdout
    assert "did not answer elicitation/create" in stdout and "within 4 s" in stdout
    [final] = [m for m in rec.messages_in(run.id) if m.direction == "to-client" and m.rpc_id == 2]
    assert final.payload["result"]["isError"] is True


@pytest.mark.live
def test_the_mrtr_provenance_probe_of_a_client_that_never_answers_reads_input_request_unanswered(tmp_path):
    """The probe's elicitation goes out on the call's stream; the endpoint gives up within the run, so the PROBE run
    ends by itself and the provenance arm says the request went unanswered, never a run the harness had to kill."""
    script = tmp_path / "never_answers.py"
    script.write_text(NEVER_ANSWERS, encoding="utf-8")
    out = tmp_path / "probe.sqlite"
    client = [sys.executable, str(script), "{url}", "get_repo_status"]
    run_check("mrtr-provenance", CheckOptions(out=out, client=client, timeout=8, era="2025-06-18"), lambda _: None)
    rec = load(out)
    [probe] = [run for run in rec.runs if run.name == "probe"]
    assert probe.outcome != "timeout" and probe.exit_code == 0
    assert "did not answer elicitation/create" in raw_bytes(rec, probe.id, "stdout").decode()
    [found] = [r for r in judge(rec).results if r.id == "mrtr-provenance-input-requests"]
    assert found.status == "SKIP" and found.reason == "input-request-unanswered", found.message
    [gave_up] = [e for e in found.evidence if e.note == "the call's final answer on that stream"]
    [final] = [m for m in rec.messages_in(probe.id) if m.seq == gave_up.seq]
    assert "did not answer elicitation/create" in final.text and "within 4 s" in final.text
