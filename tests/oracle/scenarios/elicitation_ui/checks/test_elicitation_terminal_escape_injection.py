"""The CWE-150 probe judged on synthetic recordings: each class alone, split chunks, neutralised, not shown, tty."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from backchannel.oracle import judge as judge_recording
from backchannel.oracle.registry import all_checks
from backchannel.oracle.scenarios.elicitation_ui.checks.elicitation_terminal_escape_injection import judge
from backchannel.oracle.scenarios.elicitation_ui.escapes import CLASSES, marker, payload
from backchannel.oracle.terminal import is_tty, plain, raw_bytes
from backchannel.proxy.clients.toy_agent_ui_text import neutralise
from backchannel.recordings import Recording, load
from tests.factories import new_recording
from tests.oracle.scenarios.elicitation_ui.builder import BIDI_CONTROLS, cat_v, stripped

CHECK = "elicitation-terminal-escape-injection"
NONCE = "test-nonce"  # what tests/factories.py writes into every recording
RUN = "c1"
MARK = marker(NONCE).encode()
RAW = payload(NONCE).encode()
SIGNALS = (
    "escape-cursor-erase", "escape-osc8-mismatch", "escape-osc52-clipboard", "escape-window-title",
    "escape-bidi-override", "escape-bidi-embedding", "escape-bidi-isolate", "escape-c1-control",
)  # fmt: skip


def _call(tool: str, rid: int, run: str = RUN) -> dict[str, Any]:
    params = {"name": tool, "arguments": {}}
    text = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})
    return {"run_id": run, "direction": "to-server", "kind": "request", "method": "tools/call", "text": text,
            "jsonrpc_id": str(rid), "flow_id": f"f{rid}"}  # fmt: skip


def _recording(
    tmp_path: Path,
    chunks: list[tuple[str, bytes]] | None = None,
    *,
    tools: tuple[str, ...] = ("show_notice", "get_notice"),
    client: bool = True,
    ended: bool = True,
    name: str = "contract",
) -> Recording:
    """One client run that called `tools` and wrote `chunks` (stream, bytes) in order, offsets per stream."""
    run: dict[str, Any] = {"id": RUN, "name": name, "started_at": 1.0}
    if client:
        run["client_argv"] = ["some-client", "{url}"]
    offsets: dict[str, int] = {}
    terminal = []
    for stream, data in chunks or []:
        terminal.append({"run_id": RUN, "stream": stream, "offset": offsets.get(stream, 0), "data": data})
        offsets[stream] = offsets.get(stream, 0) + len(data)
    messages = [_call(tool, i) for i, tool in enumerate(tools, start=1)]
    rec = load(new_recording(tmp_path / "r.sqlite", runs=[run], messages=messages, terminal=terminal))
    if not ended:
        return rec
    return replace(rec, runs=tuple(replace(r, ended_at=2.0, outcome="exited", exit_code=0) for r in rec.runs))


def _one(rec: Recording):
    (finding,) = judge(rec)
    return finding


def test_it_is_a_must_level_cwe_150_probe_of_the_elicitation_ui_scenario():
    check = all_checks()[CHECK]
    assert (check.scenario, check.level, check.probe, check.cwe) == ("elicitation-ui", "MUST", True, ("CWE-150",))
    assert check.spec.endswith("/2026-07-28/client/elicitation#security-considerations")
    assert '"Clients MUST provide clear indication of which server is' in check.doc


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_each_class_alone_is_confirmed_with_its_signal_and_its_raw_offset(tmp_path, cls):
    before = b"\x1b[1mnotice\x1b[0m: "
    sequence = cls.sequences(NONCE)[0].encode()
    rec = _recording(tmp_path, [("stdout", b"calling tools\n"), ("stdout", before + sequence + b" " + MARK + b"\n")])
    finding = _one(rec)
    assert (finding.status, finding.signals, finding.run) == ("FAIL", (cls.signal,), RUN)
    hit = finding.evidence[0]
    assert (hit.kind, hit.run, hit.stream) == ("terminal", RUN, "stdout")
    assert hit.offset == len(b"calling tools\n") + len(before)
    raw = raw_bytes(rec, RUN, "stdout")
    assert raw[hit.offset : hit.offset + hit.length].startswith(sequence[:4])
    assert NONCE.encode() in raw[hit.offset : hit.offset + hit.length] or cls.name == "osc52-clipboard"
    assert [e.note for e in finding.evidence if e.kind == "message"] == [
        "tools/call show_notice",
        "tools/call get_notice",
    ]


def test_the_whole_payload_raw_confirms_every_class_once_each(tmp_path):
    finding = _one(_recording(tmp_path, [("stderr", RAW + b"\n")]))
    assert finding.status == "FAIL"
    assert finding.signals == SIGNALS
    terminal = [e for e in finding.evidence if e.kind == "terminal"]
    # one per sequence: the title twice (OSC 0, 2), the overrides and embeddings twice, the isolates thrice, C1 twice
    assert len(terminal) == sum(len(c.sequences(NONCE)) for c in CLASSES) == 14
    assert {e.stream for e in terminal} == {"stderr"}


def test_a_sequence_split_over_two_chunks_is_found_in_the_concatenated_stream(tmp_path):
    (title, _) = CLASSES[3].sequences(NONCE)
    data = b"hello " + title.encode() + b" " + MARK
    cut = len(b"hello ") + 3  # inside "ESC ] 0 ;"
    finding = _one(_recording(tmp_path, [("stdout", data[:cut]), ("stdout", data[cut:])]))
    assert (finding.status, finding.signals) == ("FAIL", ("escape-window-title",))
    assert (finding.evidence[0].offset, finding.evidence[0].length) == (6, len(f"\x1b]0;BCKCH-TITLE-{NONCE}"))


def test_a_tty_run_is_read_as_raw_bytes_and_its_evidence_cites_the_plain_text_with_the_raw_offset_in_its_note(
    tmp_path,
):
    prefix = b"\x1b[?25l\x1b[2J\x1b[H\x1b[36m? \x1b[0mConfirm\r\n"
    data = prefix + RAW.replace(b"\n", b"\r\n") + b"\r\n"
    rec = _recording(tmp_path, [("tty", data[:50]), ("tty", data[50:])])
    assert is_tty(rec, RUN)
    finding = _one(rec)
    assert finding.status == "FAIL" and finding.signals == SIGNALS
    first = finding.evidence[0]
    raw_offset = data.index(b"\x1b[1A\x1b[2K")
    assert (first.stream, first.offset) == ("tty", len(plain(data[:raw_offset])))
    assert first.note.endswith(f"(raw tty byte {raw_offset})")
    assert plain(data)[first.offset :].startswith(b"BCKCH-CUR-")  # the excerpt lands on the nonce token


def test_a_tty_client_that_strips_every_sequence_is_refuted_from_its_raw_stream(tmp_path):
    data = b"\x1b[36m? \x1b[0m" + stripped(RAW) + b"\r\n\x1b[2K\x1b[1A"  # its own erasures, after the text
    finding = _one(_recording(tmp_path, [("tty", data)]))
    assert (finding.status, finding.signals) == ("PASS", ())
    assert finding.evidence[0].stream == "tty"
    assert finding.evidence[0].offset == plain(data).index(MARK)  # tty evidence cites the plain text


NEUTRALISED = {
    "caret notation": cat_v(RAW),
    "literally escaped": repr(payload(NONCE)).encode(),
    "json escaped": json.dumps(payload(NONCE)).encode(),
    "<ESC>": neutralise(payload(NONCE)).replace("\\x1b", "<ESC>").encode(),  # C1 and bidi as \x9b, \u2066
    # ESC as U+241B, C1 and bidi dropped; not through plain(), to which U+241B's last byte (0x9B) is an 8-bit CSI
    "control picture": BIDI_CONTROLS.sub(
        "", re.sub("[\u0080-\u009f]", "", payload(NONCE).replace("\x1b", "\u241b"))
    ).encode(),
    "the toy agent's neutralise": neutralise(payload(NONCE)).encode(),
    "stripped": stripped(RAW),
}


@pytest.mark.parametrize("form", NEUTRALISED)
def test_a_client_that_shows_the_payload_neutralised_is_refuted(tmp_path, form):
    finding = _one(_recording(tmp_path, [("stdout", b"\x1b[33mnotice:\x1b[0m " + NEUTRALISED[form] + b"\n")]))
    assert (finding.status, finding.signals, finding.reason) == ("PASS", (), None)
    (seen,) = [e for e in finding.evidence if e.kind == "terminal"]
    assert seen.stream == "stdout" and seen.length == len(MARK)
    if form != "stripped":
        assert "neutralised (" in finding.message and finding.observations


def test_a_clients_own_colours_and_erasures_without_the_payload_do_not_count(tmp_path):
    own = b"\x1b[31mwarning\x1b[0m \x1b[1A\x1b[2K\x1b]0;my-client\x07 " + NEUTRALISED["stripped"] + b"\n"
    finding = _one(_recording(tmp_path, [("stdout", own)]))
    assert (finding.status, finding.signals) == ("PASS", ())


def test_a_client_that_never_shows_the_text_is_skipped(tmp_path):
    finding = _one(_recording(tmp_path, [("stdout", b"\x1b[31m\x1b[1A\x1b[2Kcalled 2 tools\x1b[0m\n")]))
    assert (finding.status, finding.reason) == ("SKIP", "escape-text-not-shown")


def test_a_client_that_never_called_either_tool_is_skipped(tmp_path):
    finding = _one(_recording(tmp_path, [("stdout", RAW)], tools=("confirm_change",)))
    assert (finding.status, finding.reason) == ("SKIP", "tool-not-called")


def test_only_client_runs_are_judged_not_a_run_the_harness_drove_itself(tmp_path):
    finding = _one(_recording(tmp_path, [("stdout", RAW)], client=False))
    assert (finding.status, finding.reason) == ("SKIP", "tool-not-called")


def test_the_run_is_found_by_its_calls_whatever_its_name(tmp_path):
    finding = _one(_recording(tmp_path, [("stdout", RAW)], tools=("get_notice",), name="probe-7"))
    assert finding.status == "FAIL" and finding.run == RUN


def test_a_harness_that_did_not_see_the_run_is_an_error_not_a_skip(tmp_path):
    finding = _one(_recording(tmp_path, [], ended=False))
    assert (finding.status, finding.reason) == ("ERROR", "run-never-ended")


def test_the_report_renders_a_raw_sequence_as_confirmed(tmp_path):
    rec = _recording(tmp_path, [("stdout", RAW)])
    report = judge_recording(rec, [all_checks()[CHECK]])
    (result,) = [r for r in report.results if r.id == CHECK]
    assert (result.status, result.verdict) == ("FAIL", "CONFIRMED")
    assert result.as_dict()["evidence"][0] == {
        "kind": "terminal", "run": RUN, "stream": "stdout", "offset": RAW.index(b"\x1b[1A"),
        "length": len(f"\x1b[1A\x1b[2KBCKCH-CUR-{NONCE}"),
        "note": "cursor-erase: cursor up and erase line (CSI 1A, CSI 2K): can hide or overwrite a line, raw with this"
        " server's nonce",
    }  # fmt: skip


def test_every_client_run_that_called_the_tools_is_judged_and_the_finding_names_the_one_that_leaked(tmp_path):
    runs = [
        {"id": "a", "name": "contract", "client_argv": ["c"], "started_at": 1.0},
        {"id": "b", "name": "again", "client_argv": ["c"], "started_at": 1.5},
    ]
    terminal = [
        {"run_id": "a", "stream": "stdout", "offset": 0, "data": NEUTRALISED["caret notation"]},
        {"run_id": "b", "stream": "stderr", "offset": 0, "data": b"log: " + RAW},
    ]
    messages = [_call("show_notice", 1, "a"), _call("get_notice", 2, "b")]
    rec = load(new_recording(tmp_path / "r.sqlite", runs=runs, messages=messages, terminal=terminal))
    rec = replace(rec, runs=tuple(replace(r, ended_at=2.0, outcome="exited", exit_code=0) for r in rec.runs))
    finding = _one(rec)
    assert (finding.status, finding.run, finding.signals) == ("FAIL", "b", SIGNALS)
    assert {(e.run, e.stream) for e in finding.evidence if e.kind == "terminal"} == {("b", "stderr")}
    assert any("caret notation" in o and "contract stdout" in o for o in finding.observations)


@pytest.mark.parametrize(
    ("cls", "sequence"),
    [(c, s) for c in CLASSES[4:] for s in c.sequences(NONCE)],
    ids=lambda v: getattr(v, "name", ""),
)
def test_a_client_that_lets_one_bidi_or_c1_sequence_through_raw_is_confirmed_with_that_classs_signal(
    tmp_path, cls, sequence
):
    data = neutralise(payload(NONCE).replace(sequence, "")).encode() + b"\n" + sequence.encode() + b"\n"
    finding = _one(_recording(tmp_path, [("stdout", data)]))
    assert (finding.status, finding.signals) == ("FAIL", (cls.signal,))
    (hit,) = [e for e in finding.evidence if e.kind == "terminal"]
    assert hit.offset == data.index(sequence.encode())


def test_a_client_that_shows_c1_controls_as_cat_v_does_is_refuted_and_says_so(tmp_path):
    finding = _one(_recording(tmp_path, [("stdout", NEUTRALISED["caret notation"])]))
    assert (finding.status, finding.signals) == ("PASS", ())
    assert "cat -v M-^[" in finding.message and "caret notation ^[" in finding.message


def test_a_client_that_wraps_its_own_labels_in_isolates_and_strips_the_payload_is_refuted(tmp_path):
    own = "\u2068server\u2069: \u2066notice\u2069 \u009b".encode()  # its own isolates, a stray C1 far from any token
    finding = _one(_recording(tmp_path, [("stdout", own + b"\n" + stripped(RAW) + b"\n")]))
    assert (finding.status, finding.signals) == ("PASS", ())


def test_the_report_lists_a_new_class_as_a_signal_like_the_first_ones(tmp_path):
    (c1, _) = CLASSES[-1].sequences(NONCE)
    data = b"a " + c1.encode() + b" " + MARK
    report = judge_recording(_recording(tmp_path, [("stdout", data)]), [all_checks()[CHECK]])
    (result,) = [r for r in report.results if r.id == CHECK]
    out = result.as_dict()
    assert (out["verdict"], out["signals"]) == ("CONFIRMED", ["escape-c1-control"])
    assert out["evidence"][0] == {
        "kind": "terminal", "run": RUN, "stream": "stdout", "offset": 2,
        "length": len(f"\u009b1A\u009b2KBCKCH-C1-{NONCE}".encode()),
        "note": "c1-control: 8-bit C1 controls (CSI U+009B 1A / 2K, OSC U+009D 0 title): can hide or overwrite a line,"
        " retitle the window, raw with this server's nonce",
    }  # fmt: skip
