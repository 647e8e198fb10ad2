"""URL-opener stand-ins: first on a lab's PATH and in BROWSER, they open nothing, print nothing, exit 0 and record
each call (which opener, every argument verbatim, when); their log is read back bounded, and whatever is wrong with
it is an anomaly of the run, never a crash."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backchannel.oracle.terminal import raw_bytes
from backchannel.proxy.run import openers
from backchannel.proxy.run.lab import Lab
from backchannel.proxy.run.openers import (
    LOG_NAME,
    MAGIC,
    MAX_ARGV_BYTES,
    MAX_INVOCATIONS,
    OPENERS,
    Invocation,
    install,
    read_log,
    script,
)
from backchannel.recordings import load

URL = "http://127.0.0.1:1/r/x/mcp"


def _record(name: str, t: str, *args: str | bytes) -> bytes:
    """One record as a stand-in writes it (printf '%s\\0' MAGIC name t argc args...)."""
    raw = [a.encode() if isinstance(a, str) else a for a in args]
    return b"".join(part + b"\0" for part in [MAGIC, name.encode(), t.encode(), str(len(raw)).encode(), *raw])


def _log(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / LOG_NAME
    path.write_bytes(data)
    return path


def _run_in_lab(lab: Lab, code: str, timeout: float = 30.0) -> tuple[int | None, bytes, bytes]:
    chunks: list[tuple[str, bytes]] = []
    result = lab.run([sys.executable, "-c", code], lab.env(URL), lambda s, d: chunks.append((s, d)), timeout)
    out = b"".join(d for s, d in chunks if s == "stdout")
    err = b"".join(d for s, d in chunks if s == "stderr")
    return result.exit_code, out, err


# ---------------------------------------------------------------------------------------------- the stand-ins


def test_every_common_opener_has_a_stand_in_and_the_folder_is_owner_only(tmp_path):
    folder = install(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == sorted(OPENERS)
    assert set(OPENERS) >= {"xdg-open", "open", "sensible-browser", "x-www-browser", "www-browser", "gio", "wslview"}
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for path in folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o700
        text = path.read_text()
        assert text.startswith("#!/bin/sh\n") and str(tmp_path / LOG_NAME) in text
        assert "eval" not in text and "exec" not in text and '"$@"' in text  # arguments passed to printf only


def test_a_stand_in_is_made_only_for_a_known_opener(tmp_path):
    with pytest.raises(ValueError, match="not one of the stand-in openers"):
        script("firefox", tmp_path / LOG_NAME, "/usr/bin/date")


def test_a_lab_puts_the_stand_ins_first_on_path_and_in_browser_whatever_extra_says():
    lab = Lab("t")
    try:
        env = lab.env(URL)
        assert env["PATH"].split(os.pathsep)[0] == str(lab.openers)
        assert env["PATH"].split(os.pathsep)[1:] == os.environ["PATH"].split(os.pathsep)  # the real PATH after them
        assert env["BROWSER"] == str(lab.openers / "xdg-open")
        overridden = lab.env(URL, {"PATH": "/opt/mine/bin", "BROWSER": "firefox"})
        assert overridden["PATH"] == f"{lab.openers}{os.pathsep}/opt/mine/bin"
        assert overridden["BROWSER"] == str(lab.openers / "xdg-open")
        assert lab.opener_log.parent == lab.root and not lab.opener_log.is_relative_to(lab.home)  # outside HOME
    finally:
        lab.close()
    assert not lab.root.exists()


@pytest.mark.live
def test_a_client_opening_urls_every_common_way_has_each_call_recorded_with_its_arguments_and_time(tmp_path):
    from backchannel.proxy.run.capture import Capture

    code = textwrap.dedent(
        """
        import subprocess, sys
        calls = [
            ["xdg-open", "https://a.example/x?y=1&z=2"],
            ["open", "https://b.example/"],
            [sys.executable, "-m", "webbrowser", "https://c.example/"],  # goes through BROWSER
            ["gio", "open", "https://d.example/"],
            ["sensible-browser", "https://e.example/"],
            ["x-www-browser", "https://f.example/"],
            ["www-browser", "https://g.example/"],
            ["wslview", "https://h.example/"],
        ]
        for argv in calls:
            done = subprocess.run(argv, capture_output=True, timeout=20)
            quiet = argv[1:2] == ["-m"] or done.stdout == done.stderr == b""  # webbrowser itself rings a bell
            print(argv[-1], done.returncode, quiet)
        """
    )
    with Capture(tmp_path / "rec.sqlite") as capture:
        run = capture.new_run("opens")
        before = time.time()
        result = capture.run_client(run, [sys.executable, "-c", code], timeout=60)
        after = time.time()
    assert result.outcome == "exited" and result.exit_code == 0
    rec = load(tmp_path / "rec.sqlite")
    said = raw_bytes(rec, run.id, "stdout").decode().splitlines()
    assert len(said) == 8 and all(line.split()[1:] == ["0", "True"] for line in said), said  # exit 0, not a word
    found = [(o.opener, o.argv, o.truncated) for o in rec.opens_in(run.id)]
    assert found == [
        ("xdg-open", ("https://a.example/x?y=1&z=2",), False),
        ("open", ("https://b.example/",), False),
        ("xdg-open", ("https://c.example/",), False),
        ("gio", ("open", "https://d.example/"), False),
        ("sensible-browser", ("https://e.example/",), False),
        ("x-www-browser", ("https://f.example/",), False),
        ("www-browser", ("https://g.example/",), False),
        ("wslview", ("https://h.example/",), False),
    ]
    times = [o.t for o in rec.opens_in(run.id)]
    assert all(t is not None and before <= t <= after for t in times)
    assert times == sorted(t or 0.0 for t in times)
    assert [o.targets for o in rec.opens_in(run.id)][3] == ("https://d.example/",)
    assert not any(a.run_id == run.id and a.kind.startswith("opener-") for a in rec.anomalies)


@pytest.mark.live
def test_a_stand_in_never_runs_expands_or_interprets_its_arguments(tmp_path):
    hostile = [
        f"$(touch {tmp_path}/a)",
        f"; touch {tmp_path}/b",
        f"`touch {tmp_path}/c`",
        f"| touch {tmp_path}/d",
        f"&& touch {tmp_path}/e #",
        "%s%n%d\\0\\n\\c",
        "-e",
        "line\nbreak",
        "",
        "*",
        "$HOME",
        "--",
    ]
    lab = Lab("t")
    try:
        code = f"import subprocess; print(subprocess.run(['xdg-open', *{hostile!r}]).returncode)"
        exit_code, out, err = _run_in_lab(lab, code)
        found = lab.opener_calls()
    finally:
        lab.close()
    assert (exit_code, out, err) == (0, b"0\n", b"")
    assert [p.name for p in tmp_path.iterdir()] == []
    assert found.problems == () and len(found.invocations) == 1
    assert found.invocations[0].argv == tuple(hostile)  # every byte as given: no glob, no variable, no escape


@pytest.mark.live
def test_the_client_still_finds_its_own_tools_on_path_and_the_openers_are_the_stand_ins():
    lab = Lab("t")
    try:
        code = "import shutil; print(shutil.which('ls')); print(shutil.which('sh')); print(shutil.which('xdg-open'))"
        exit_code, out, _ = _run_in_lab(lab, code)
        ls, sh, opener = out.decode().splitlines()
        stand_in = str(lab.openers / "xdg-open")
    finally:
        lab.close()
    assert exit_code == 0
    assert Path(ls).name == "ls" and Path(sh).name == "sh" and not ls.startswith(str(lab.root))
    assert opener == stand_in


@pytest.mark.live
def test_calls_at_the_same_moment_are_each_recorded_whole():
    lab = Lab("t")
    try:
        code = (
            "import subprocess; procs = [subprocess.Popen(['open', f'https://x.example/{i}', 'y' * 2000]) "
            "for i in range(20)]; print([p.wait(20) for p in procs].count(0))"
        )
        exit_code, out, _ = _run_in_lab(lab, code)
        found = lab.opener_calls()
    finally:
        lab.close()
    assert (exit_code, out) == (0, b"20\n")
    assert found.problems == ()
    assert sorted(i.argv[0] for i in found.invocations) == sorted(f"https://x.example/{i}" for i in range(20))


@pytest.mark.live
def test_a_client_that_spoils_or_swaps_the_log_leaves_an_anomaly_and_its_run_ends_as_usual(tmp_path):
    from backchannel.proxy.run.capture import Capture

    spoil = (
        "import os, subprocess; subprocess.run(['xdg-open', 'https://kept.example/']); "
        "open(os.path.join(os.environ['TMPDIR'], 'openers.log'), 'ab').write(b'garbage\\0' * 3)"
    )
    flood = (
        "import os; f = open(os.path.join(os.environ['TMPDIR'], 'openers.log'), 'wb'); "
        f"[f.write(b'x' * (1 << 20)) for _ in range({openers.MAX_LOG_BYTES // (1 << 20) + 2})]"
    )
    swap = (
        f"import os; open({str(tmp_path / 'secret')!r}, 'w').write('private'); "
        f"os.symlink({str(tmp_path / 'secret')!r}, os.path.join(os.environ['TMPDIR'], 'openers.log'))"
    )
    with Capture(tmp_path / "rec.sqlite") as capture:
        runs = []
        for name, code in (("spoil", spoil), ("flood", flood), ("swap", swap)):
            run = capture.new_run(name)
            result = capture.run_client(run, [sys.executable, "-c", code], timeout=60)
            assert (result.outcome, result.exit_code) == ("exited", 0), name
            runs.append(run)
    rec = load(tmp_path / "rec.sqlite")
    spoiled, flooded, swapped = runs
    assert [o.argv for o in rec.opens_in(spoiled.id)] == [("https://kept.example/",)]
    kinds = {run.name: [(a.kind, a.detail) for a in rec.anomalies if a.run_id == run.id] for run in runs}
    assert [k for k, _ in kinds["spoil"]] == ["opener-log-malformed"]
    assert "the 1 call before it is recorded" in kinds["spoil"][0][1]
    assert [k for k, _ in kinds["flood"]] == ["opener-log-oversized", "opener-log-malformed"]
    assert list(rec.opens_in(flooded.id)) == []
    assert kinds["swap"] == [("opener-log-unreadable", "the URL-opener log is a symlink; no call of it is recorded")]
    assert list(rec.opens_in(swapped.id)) == [] and all(r.outcome == "exited" for r in rec.runs)


# ---------------------------------------------------------------------------------------------- reading the log


def test_no_log_means_no_opener_was_called(tmp_path):
    found = read_log(tmp_path / LOG_NAME)
    assert found.invocations == () and found.problems == ()


def test_each_record_comes_back_with_its_opener_arguments_and_time(tmp_path):
    data = _record("xdg-open", "1700000000.123456789", "https://x/") + _record("gio", "", "open", "a\nb", "")
    found = read_log(_log(tmp_path, data))
    assert found.problems == ()
    assert found.invocations == (
        Invocation("xdg-open", ("https://x/",), 1700000000.123456789),
        Invocation("gio", ("open", "a\nb", ""), None),  # no time (no `date` here): unknown, not a problem
    )


@pytest.mark.parametrize("t", ["nan", "inf", "-5", "1.5e400", "soon", "\xff"])
def test_a_time_that_is_not_a_plain_epoch_reads_as_unknown(tmp_path, t):
    (call,) = read_log(_log(tmp_path, _record("open", t, "u"))).invocations
    assert call.t is None


def test_an_argument_that_is_not_utf8_is_kept_with_replacement_characters(tmp_path):
    (call,) = read_log(_log(tmp_path, _record("open", "1", b"https://x/\xff\xfe"))).invocations
    assert call.argv == ("https://x/\ufffd\ufffd",)


@pytest.mark.parametrize(
    ("data", "why", "kept"),
    [
        (b"not a log at all\n", "it is not a stand-in's record", 0),
        (_record("open", "1", "u") * 2 + b"garbage\0", "it is not a stand-in's record", 2),
        (_record("firefox", "1", "u"), "it names no stand-in opener", 0),
        (_record("open", "1", "u")[:-3], "it ends in the middle of a call", 0),
        (MAGIC + b"\0open\0" + b"1" * 100 + b"\0", "its time is longer than 64 bytes", 0),
        (MAGIC + b"\0open\0" + b"1\0x\0", "its argument count is not a number", 0),
        (MAGIC + b"\0open\0" + b"1\0999999999\0a\0", "it ends in the middle of a call", 0),
    ],
    ids=["garbage", "garbage-after", "unknown-opener", "cut", "long-field", "count", "huge-count"],
)
def test_a_malformed_log_is_a_problem_naming_where_and_the_calls_before_it_are_kept(tmp_path, data, why, kept):
    found = read_log(_log(tmp_path, data))
    assert len(found.invocations) == kept
    ((kind, detail),) = [(p.kind, p.detail) for p in found.problems]
    assert kind == "opener-log-malformed" and why in detail
    assert f"the {kept} call{'' if kept == 1 else 's'} before it" in detail


def test_an_argv_over_its_limit_is_cut_and_marked(tmp_path):
    data = _record("xdg-open", "1", "https://x/", "a" * MAX_ARGV_BYTES, "never") + _record("open", "2", "next")
    first, second = read_log(_log(tmp_path, data)).invocations
    assert first.truncated and first.argv[0] == "https://x/"
    assert first.argv[1] == "a" * (MAX_ARGV_BYTES - len("https://x/") - 2)
    assert sum(len(a.encode()) + 1 for a in first.argv) == MAX_ARGV_BYTES
    assert (second.argv, second.truncated) == (("next",), False)  # the next call is read as usual


def test_many_empty_arguments_count_against_the_limit_too(tmp_path):
    (call,) = read_log(_log(tmp_path, _record("open", "1", *([""] * 10_000)))).invocations
    assert call.truncated and len(call.argv) == MAX_ARGV_BYTES


def test_calls_past_the_limit_are_counted_not_kept(tmp_path):
    data = b"".join(_record("open", str(i), f"https://x/{i}") for i in range(MAX_INVOCATIONS + 7))
    found = read_log(_log(tmp_path, data))
    assert len(found.invocations) == MAX_INVOCATIONS and found.invocations[-1].argv == (
        f"https://x/{MAX_INVOCATIONS - 1}",
    )
    ((kind, detail),) = [(p.kind, p.detail) for p in found.problems]
    assert kind == "opener-log-limit" and f"the first {MAX_INVOCATIONS} are recorded, 7 more are not" in detail


def test_a_log_over_its_limit_is_read_up_to_it_and_the_rest_named(tmp_path, monkeypatch):
    monkeypatch.setattr(openers, "MAX_LOG_BYTES", 1000)
    data = b"".join(_record("open", "1", f"https://x/{i}") for i in range(100))
    found = read_log(_log(tmp_path, data))
    assert 0 < len(found.invocations) < 100
    ((kind, detail),) = [(p.kind, p.detail) for p in found.problems]  # the record cut at the limit is not "malformed"
    assert kind == "opener-log-oversized" and f"holds {len(data)} bytes, over the 1000 read" in detail


def test_a_log_that_is_a_symlink_is_never_followed(tmp_path):
    target = _log(tmp_path, _record("open", "1", "https://planted/")).rename(tmp_path / "elsewhere")
    (tmp_path / LOG_NAME).symlink_to(target)
    found = read_log(tmp_path / LOG_NAME)
    assert found.invocations == ()
    assert [(p.kind, p.detail) for p in found.problems] == [
        ("opener-log-unreadable", "the URL-opener log is a symlink; no call of it is recorded")
    ]


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_log_that_is_not_a_regular_file_is_refused_at_once(tmp_path, kind):
    path = tmp_path / LOG_NAME
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    began = time.monotonic()
    found = read_log(path)
    assert time.monotonic() - began < 5  # a FIFO nobody writes never blocks the harness
    assert found.invocations == () and [p.kind for p in found.problems] == ["opener-log-unreadable"]


_pieces = st.one_of(
    st.binary(max_size=40),
    st.builds(lambda args: _record("open", "1.5", *args), st.lists(st.binary(max_size=30), max_size=5)),
    st.sampled_from([b"\0", MAGIC, MAGIC + b"\0", b"999999999\0", b"gio\0"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_pieces, max_size=12))
def test_whatever_bytes_the_log_holds_it_reads_without_raising_and_within_its_bounds(pieces):
    with tempfile.TemporaryDirectory() as folder:
        found = read_log(_log(Path(folder), b"".join(pieces)))
    assert len(found.invocations) <= MAX_INVOCATIONS and len(found.problems) <= 2
    for call in found.invocations:
        assert call.opener in OPENERS
        assert sum(len(a.encode()) + 1 for a in call.argv) <= MAX_ARGV_BYTES + 3 * len(call.argv)  # U+FFFD is 3 bytes
