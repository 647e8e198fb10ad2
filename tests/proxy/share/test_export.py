"""`export FILE --format har|mitm|sqlite` writes one redacted file beside the recording or at --out, never over one."""

from __future__ import annotations

import base64
import json
import shutil

import pytest

from backchannel.proxy.share.export import default_out
from backchannel.recordings import load, redact
from tests.factories import PNG_SHOT, answered_recording

from .conftest import FLAWED, REFERENCE, invoke

REFERENCES = sorted(REFERENCE.glob("*.sqlite"))


@pytest.mark.parametrize("fmt", ["har", "mitm", "sqlite"])
def test_each_format_is_written_beside_the_recording_with_its_own_suffix(tmp_path, fmt):
    copy = tmp_path / "flawed.sqlite"
    shutil.copyfile(FLAWED, copy)
    result = invoke("export", copy, "--format", fmt)
    assert result.exit_code == 0, result.output
    out = tmp_path / {"har": "flawed.har", "mitm": "flawed.mitm", "sqlite": "flawed.export.sqlite"}[fmt]
    assert out.is_file() and out == default_out(copy, fmt)
    assert f"wrote {out}" in result.output and "redacted: " in result.output


def test_an_existing_output_is_never_overwritten_and_the_export_exits_2(tmp_path):
    out = tmp_path / "taken.har"
    out.write_text("mine")
    result = invoke("export", FLAWED, "--format", "har", "--out", out)
    assert result.exit_code == 2 and "already exists" in result.output
    assert out.read_text() == "mine"


@pytest.mark.parametrize("recording", REFERENCES, ids=lambda p: p.stem)
def test_every_reference_recording_exports_in_every_format(tmp_path, recording):
    for fmt in ("har", "mitm", "sqlite"):
        result = invoke("export", recording, "--format", fmt, "--out", tmp_path / f"out.{fmt}")
        assert result.exit_code == 0, result.output
    har = json.loads((tmp_path / "out.har").read_text())
    assert len(har["log"]["entries"]) == len(load(recording).exchanges)
    assert len(load(tmp_path / "out.sqlite").runs) == len(load(recording).runs)


def test_run_picks_runs_by_name_and_an_unknown_run_is_refused_naming_the_runs(tmp_path):
    result = invoke("export", FLAWED, "--format", "har", "--run", "probe", "--out", tmp_path / "probe.har")
    assert result.exit_code == 0, result.output
    probe = next(r for r in load(FLAWED).runs if r.name == "probe")
    urls = [e["request"]["url"] for e in json.loads((tmp_path / "probe.har").read_text())["log"]["entries"]]
    assert urls and all(f"/r/{probe.id}/" in url for url in urls)
    missing = invoke("export", FLAWED, "--format", "har", "--run", "nope", "--out", tmp_path / "x.har")
    assert missing.exit_code == 2 and "no run 'nope'" in missing.output and "probe" in missing.output


def test_redact_removes_a_named_secret_and_the_export_names_what_it_redacted_never_the_value(tmp_path, hostile):
    for fmt in ("har", "mitm", "sqlite"):
        out = tmp_path / f"out.{fmt}"
        result = invoke("export", hostile, "--format", fmt, "--redact", "customer", "--out", out)
        assert result.exit_code == 0, result.output
        assert b"alice" not in out.read_bytes(), fmt
        assert "header x-customer x1" in result.output and "query customer x1" in result.output
        assert "json-member customer x1" in result.output and "alice" not in result.output
    assert redact.redact_json_text('{"customer":"alice"}') == '{"customer":"alice"}'  # nothing process-wide changed


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database")
    for args in (
        [junk, "--format", "har"],
        [tmp_path / "missing.sqlite", "--format", "har"],
        [FLAWED, "--format", "pdf", "--out", tmp_path / "x"],
        [FLAWED, "--format", "har", "--redact", "(", "--out", tmp_path / "y"],
        [FLAWED, "--format", "har", "--out", tmp_path / "no-such-folder" / "x.har"],
    ):
        result = invoke("export", *args)
        assert result.exit_code == 2, result.output
        assert len(result.output.strip().splitlines()) == 1, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.sqlite"]


def test_every_format_takes_a_recording_that_is_not_all_utf8(tmp_path, not_utf8):
    """What the reader accepts, every output takes: the HAR is UTF-8 JSON with the binary body in base64 (HAR 1.2)
    and the lone surrogate still its escape; the sqlite copy reads back with the header as it was."""
    assert load(not_utf8).exchanges[0].response_headers[1] == ("x-odd", "a\udcffb")  # the reader's view
    for fmt in ("har", "mitm", "sqlite"):
        result = invoke("export", not_utf8, "--format", fmt, "--out", tmp_path / f"out.{fmt}")
        assert result.exit_code == 0, (fmt, result.output)
    har = json.loads((tmp_path / "out.har").read_bytes().decode("utf-8"))
    content = har["log"]["entries"][0]["response"]["content"]
    assert (content["encoding"], base64.b64decode(content["text"])) == ("base64", b'{"a":"\xff"}')
    assert {"name": "x-odd", "value": "a\udcffb"} in har["log"]["entries"][0]["response"]["headers"]
    assert load(tmp_path / "out.sqlite").exchanges[0].response_headers[1] == ("x-odd", "a\udcffb")


def test_a_sqlite_export_keeps_a_persons_screenshots_and_says_so_and_no_screenshots_leaves_them_out(tmp_path):
    source = answered_recording(tmp_path / "answered.sqlite")
    kept = invoke("export", source, "--format", "sqlite", "--out", tmp_path / "kept.sqlite")
    assert kept.exit_code == 0, kept.output
    assert "kept 3 screenshot(s) as the person gave them" in kept.output
    assert load(tmp_path / "kept.sqlite").attestations[0].screenshot == PNG_SHOT
    left = invoke("export", source, "--format", "sqlite", "--out", tmp_path / "left.sqlite", "--no-screenshots")
    assert left.exit_code == 0, left.output
    assert "left out 3 screenshot(s) (--no-screenshots)" in left.output
    assert PNG_SHOT not in (tmp_path / "left.sqlite").read_bytes()
    assert [a.screenshot for a in load(tmp_path / "left.sqlite").attestations] == [None] * 4


def test_a_har_export_holds_no_screenshot_and_says_nothing_about_them(tmp_path):
    result = invoke("export", answered_recording(tmp_path / "answered.sqlite"), "--format", "har")
    assert result.exit_code == 0 and "screenshot" not in result.output
