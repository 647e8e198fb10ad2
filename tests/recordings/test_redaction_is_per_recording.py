"""Settings are values: two recordings written, trimmed or read in one process, interleaved, keep their own."""

import json
import threading

from backchannel.recordings import cells, load, redact, store
from backchannel.recordings.meta import Redactions
from backchannel.recordings.rows import MessageRow
from backchannel.recordings.shapes import Invocation
from backchannel.recordings.trim import trim_copy
from tests.factories import new_recording

TEXT = '{"customer":"alice","tenant":"bob"}'


def _texts(path):
    return [json.loads(m.text) for m in load(path).messages]


def test_two_writers_with_different_patterns_alternating_each_redact_and_tally_their_own(tmp_path):
    paths = {name: store.create(tmp_path / f"{name}.sqlite") for name in ("customer", "tenant")}
    writers = {
        name: store.RecordingWriter(path, redact.Redactor(redact.Policy([name]))) for name, path in paths.items()
    }
    for _ in range(3):  # alternating, each row serialised on its own writer's thread
        for writer in writers.values():
            writer.insert(MessageRow(direction="to-server", kind="request", text=TEXT))
            writer.set_meta(Invocation(argv=("client", "--customer", "c1", "--tenant", "t1")))
    for writer in writers.values():
        writer.later(lambda writer=writer: writer.set_meta(writer.redactor.summary("harness")))
        writer.close()
    assert _texts(paths["customer"]) == [{"customer": redact.REDACTED, "tenant": "bob"}] * 3
    assert _texts(paths["tenant"]) == [{"customer": "alice", "tenant": redact.REDACTED}] * 3
    argv = {
        "customer": ("client", "--customer", redact.REDACTED, "--tenant", "t1"),
        "tenant": ("client", "--customer", "c1", "--tenant", redact.REDACTED),
    }
    for name, path in paths.items():
        rec = load(path)
        invocation = Invocation.read(rec.meta)
        assert invocation is not None and invocation.argv == argv[name]
        (said,) = Redactions.read_all(rec.meta)
        assert said.patterns == (name,)
        assert said.counts == {"argv": {name: 3}, "json-member": {name: 3}}


def test_two_trims_with_different_policies_interleaved_each_apply_and_count_their_own(tmp_path):
    source = new_recording(
        tmp_path / "src.sqlite",
        runs=[{"id": "r1"}],
        messages=[{"run_id": "r1", "direction": "to-server", "kind": "request", "text": TEXT}],
    )
    first = trim_copy(source, tmp_path / "a.sqlite", policy=redact.Policy(["customer"]))
    second = trim_copy(source, tmp_path / "b.sqlite", policy=redact.Policy(["tenant"]))
    third = trim_copy(source, tmp_path / "c.sqlite", policy=redact.Policy(["customer"]))
    assert first.counts == third.counts == {"json-member": {"customer": 1}}
    assert second.counts == {"json-member": {"tenant": 1}}
    assert (
        _texts(tmp_path / "a.sqlite")
        == _texts(tmp_path / "c.sqlite")
        == [{"customer": redact.REDACTED, "tenant": "bob"}]
    )
    assert _texts(tmp_path / "b.sqlite") == [{"customer": "alice", "tenant": redact.REDACTED}]
    assert redact.redact_json_text(TEXT) == TEXT  # and nothing process-wide was left set


def test_a_loads_json_depth_bound_is_its_own_while_another_thread_reads():
    deep = "[" * 50 + "]" * 50
    bound, checked, seen = threading.Event(), threading.Event(), []

    def strict_load() -> None:
        token = cells.JSON_DEPTH.set(10)  # as reader.load binds its ReadLimits' bound for its call
        try:
            bound.set()
            checked.wait(10)
            try:
                cells.json_text(deep)
            except ValueError as exc:
                seen.append(str(exc))
        finally:
            cells.JSON_DEPTH.reset(token)

    thread = threading.Thread(target=strict_load)
    thread.start()
    assert bound.wait(10)
    assert cells.json_text(deep) == deep  # this thread's bound is still the default
    checked.set()
    thread.join(10)
    assert seen == ["JSON nested deeper than the reader's limit of 10"]
