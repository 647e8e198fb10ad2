"""`judge --cache`: an unchanged recording's report comes from the cache, byte for byte what judging it prints;
a change to the recording, its path or the oracle's code is judged again; an entry that does not decode is a miss."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from backchannel.proxy.judging import cache as cache_mod
from backchannel.proxy.judging import parallel
from backchannel.proxy.judging.cache import JudgeCache, recording_key
from backchannel.proxy.judging.inputs import expand
from backchannel.proxy.judging.parallel import judge_all, tasks_for

REFERENCE = Path(__file__).resolve().parents[3] / "recordings" / "reference"
CLI = [sys.executable, "-m", "backchannel.proxy.cli", "judge"]
REPORT = {"summary": {"PASS": 1}, "exit_code": 0, "results": [{"id": "c", "scenario": "s", "status": "PASS"}]}


def corpus(folder: Path) -> Path:
    folder.mkdir()
    for source in sorted(REFERENCE.glob("elicitation-url-mode-*.sqlite"))[:6]:
        shutil.copyfile(source, folder / source.name)
    return folder


def entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.json.z"))


def test_a_warm_cache_prints_the_same_bytes_as_judging_in_every_corpus_format_and_a_cold_one_fills_it(tmp_path: Path):
    recordings, kept = corpus(tmp_path / "corpus"), tmp_path / "cache"
    cold = subprocess.run([*CLI, str(recordings), "--format", "json", "--cache", str(kept)], capture_output=True)
    assert len(entries(kept)) == 6, "each judged recording is kept"
    assert f"backchannel: 0 of 6 reports read from the cache ({kept}); 6 judged".encode() in cold.stderr
    for fmt in ("json", "text", "sarif"):
        plain = subprocess.run([*CLI, str(recordings), "--format", fmt], capture_output=True, timeout=120)
        warm = subprocess.run([*CLI, str(recordings), "--format", fmt, "--cache", str(kept)], capture_output=True)
        assert plain.returncode == warm.returncode == cold.returncode and plain.returncode in (0, 1), fmt
        assert plain.stdout == warm.stdout, fmt
        assert f"6 of 6 reports read from the cache ({kept}); 0 judged".encode() in warm.stderr, fmt
        assert b"read from the cache" not in plain.stderr
        if fmt == "json":
            assert cold.stdout == plain.stdout


def test_a_hit_is_not_judged_and_a_changed_recording_a_moved_one_or_another_oracle_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    recordings, kept = corpus(tmp_path / "corpus"), tmp_path / "cache"
    first = list(judge_all(tasks_for(expand([str(recordings)]), cache=kept), 1))
    judged: list[str] = []
    real = parallel.load
    monkeypatch.setattr(parallel, "load", lambda path: judged.append(str(path)) or real(path))
    again = list(judge_all(tasks_for(expand([str(recordings)]), cache=kept), 1))
    assert [(o.name, o.report) for o in again] == [(o.name, o.report) for o in first]
    assert judged == [] and all(o.cached for o in again) and not any(o.cached for o in first), "all from the cache"

    changed = sorted(recordings.glob("*.sqlite"))[0]
    conn = sqlite3.connect(changed)
    with conn:
        conn.execute("UPDATE meta SET value = 'another' WHERE key = 'nonce'")
    conn.close()
    moved = recordings / "moved"
    moved.mkdir()
    shutil.move(sorted(recordings.glob("*.sqlite"))[-1], moved / "same-bytes.sqlite")
    list(judge_all(tasks_for(expand([str(recordings)]), cache=kept), 1))
    assert sorted(Path(p).name for p in judged) == [changed.name, "same-bytes.sqlite"]

    judged.clear()
    monkeypatch.setattr(cache_mod, "oracle_fingerprint", lambda: "f" * 64)
    monkeypatch.setattr(parallel, "oracle_fingerprint", lambda: "f" * 64)
    list(judge_all(tasks_for(expand([str(recordings)]), cache=kept), 1))
    assert len(judged) == 6, "another oracle judges every recording again"
    assert len([p for p in kept.iterdir() if (p / cache_mod.MARKER).is_file()]) == 2, "both oracles are kept"


def test_only_the_most_recently_used_oracles_folders_are_kept_and_a_folder_the_cache_did_not_make_is_never_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    kept = tmp_path / "cache"
    mine = kept / "0123456789abcdef" / "important"
    mine.mkdir(parents=True)
    (mine / "file.txt").write_text("the user's")
    for n in range(cache_mod.KEEP_ORACLES + 2):
        monkeypatch.setattr(cache_mod, "oracle_fingerprint", lambda n=n: f"{n:x}" * 64)
        made = JudgeCache.open(kept)
        os.utime(made.folder / cache_mod.MARKER, (n, n))  # older first
    monkeypatch.setattr(cache_mod, "oracle_fingerprint", lambda: "e" * 64)
    JudgeCache.open(kept)
    marked = sorted(p.name[0] for p in kept.iterdir() if (p / cache_mod.MARKER).is_file())
    assert len(marked) == cache_mod.KEEP_ORACLES and "e" in marked and "0" not in marked
    assert (mine / "file.txt").read_text() == "the user's"


def test_a_recording_rewritten_while_it_is_judged_is_not_kept_under_its_old_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    recordings, kept = corpus(tmp_path / "corpus"), tmp_path / "cache"
    target = sorted(recordings.glob("*.sqlite"))[0]
    real = parallel.load

    def rewritten_meanwhile(path: str):  # the file changes between the hash and the judging
        loaded = real(path)
        os.utime(target, ns=(1, 1))
        return loaded

    monkeypatch.setattr(parallel, "load", rewritten_meanwhile)
    list(judge_all(tasks_for(expand([str(target)]), cache=kept), 1))
    assert entries(kept) == []


def test_a_fifo_or_a_folder_where_a_recording_should_be_is_judged_as_without_the_cache(tmp_path: Path):
    fifo = tmp_path / "b.sqlite"
    os.mkfifo(fifo)
    [outcome] = list(judge_all(tasks_for(expand([str(fifo)]), cache=tmp_path / "cache"), 1))
    assert outcome.report is None and outcome.error, "not read, and it did not hang"
    assert recording_key(str(fifo)) is None


def test_a_cache_folder_that_cannot_be_made_is_said_and_judging_goes_on(tmp_path: Path):
    recordings, blocker = corpus(tmp_path / "corpus"), tmp_path / "a-file"
    blocker.write_text("not a folder")
    plain = subprocess.run([*CLI, str(recordings), "--format", "text"], capture_output=True, timeout=120)
    done = subprocess.run([*CLI, str(recordings), "--format", "text", "--cache", str(blocker)], capture_output=True)
    assert done.returncode == plain.returncode and done.stdout == plain.stdout
    assert b"judging without the cache" in done.stderr and str(blocker).encode() in done.stderr


def test_diff_store_and_a_recording_left_open_never_use_the_cache(tmp_path: Path):
    recordings, kept = corpus(tmp_path / "corpus"), tmp_path / "cache"
    list(judge_all(tasks_for(expand([str(recordings)]), read_stored=True, cache=kept), 1))
    list(judge_all(tasks_for(expand([str(recordings)]), store=True, cache=kept), 1))
    assert entries(kept) == []
    one = sorted(recordings.glob("*.sqlite"))[0]
    one.with_name(one.name + "-wal").write_bytes(b"x")
    assert recording_key(str(one)) is None


def test_an_entry_that_does_not_decode_names_another_oracle_or_is_hostile_is_a_miss(tmp_path: Path):
    kept = JudgeCache.open(tmp_path / "cache")
    key = "ab" * 32
    kept.put(key, REPORT)
    assert kept.get(key) == REPORT
    entry = entries(tmp_path / "cache")[0]
    fingerprint = kept.fingerprint.encode()
    for hostile in (
        b"not zlib",
        zlib.compress(json.dumps({"fingerprint": "other", "report": REPORT}).encode()),
        zlib.compress(b'{"fingerprint": "' + fingerprint + b'", "report": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        zlib.compress(b" " * (cache_mod.MAX_ENTRY_BYTES + 1)),  # a bomb: inflated only up to the bound
    ):
        entry.write_bytes(hostile)
        assert kept.get(key) is None
    assert kept.get("cd" * 32) is None


def test_a_kept_report_this_oracle_cannot_shape_is_judged_again(tmp_path: Path):
    recordings, kept = corpus(tmp_path / "corpus"), tmp_path / "cache"
    first = list(judge_all(tasks_for(expand([str(recordings)]), shape="summary", cache=kept), 1))
    for entry in entries(kept):
        data = json.loads(zlib.decompress(entry.read_bytes()))
        data["report"]["results"] = [1]
        entry.write_bytes(zlib.compress(json.dumps(data).encode()))
    assert list(judge_all(tasks_for(expand([str(recordings)]), shape="summary", cache=kept), 1)) == first


# what a damaged or hand-made entry may hold instead of a report: each crashed a corpus output before
NOT_REPORTS = (
    lambda r: r.pop("summary"),
    lambda r: r.update(summary="x"),
    lambda r: r.update(summary={"PASS": "many"}),
    lambda r: r.update(exit_code="0"),
    lambda r: r.update(results={"a": 1}),
    lambda r: r["results"].append({"id": "x", "scenario": "s", "status": "GREAT"}),
    lambda r: r["results"].append({"id": 1, "scenario": "s", "status": "PASS"}),
    lambda r: r.clear(),
)


def test_an_entry_that_decodes_but_is_not_a_report_is_a_miss(tmp_path: Path):
    kept = JudgeCache.open(tmp_path / "cache")
    for n, damage in enumerate(NOT_REPORTS):
        report = json.loads(json.dumps(REPORT))
        damage(report)
        kept.put(f"{n:02x}" * 32, report)
        assert kept.get(f"{n:02x}" * 32) is None, report


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_a_corpus_with_entries_that_are_not_reports_prints_what_judging_it_prints(tmp_path: Path, fmt: str):
    recordings, kept = corpus(tmp_path / "corpus"), tmp_path / "cache"
    argv = [*CLI, str(recordings), "--format", fmt, "--cache", str(kept)]
    cold = subprocess.run(argv, capture_output=True, timeout=60)
    for entry, damage in zip(entries(kept)[:5], NOT_REPORTS, strict=False):
        data = json.loads(zlib.decompress(entry.read_bytes()))
        damage(data["report"])
        entry.write_bytes(zlib.compress(json.dumps(data).encode()))
    warm = subprocess.run(argv, capture_output=True, timeout=60)
    assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout), warm.stderr.decode()[-2000:]
    assert warm.stderr.decode().strip() == f"backchannel: 1 of 6 reports read from the cache ({kept}); 5 judged"


def test_a_folder_where_an_entry_or_a_temporary_file_would_be_leaves_the_cache_in_use(tmp_path: Path):
    kept = JudgeCache.open(tmp_path / "cache")
    kept.put("ab" * 32, REPORT)
    stale = kept.folder / "ab" / ".x.part"
    stale.mkdir()
    (stale / "inside").write_text("kept")
    os.utime(stale, (1, 1))
    (kept.folder / "ab" / ("cd" * 32 + ".json.z")).mkdir()
    again = JudgeCache.open(tmp_path / "cache")  # tidying met both folders: no CacheError
    assert again.get("ab" * 32) == REPORT and again.get("cd" * 32) is None
    assert (stale / "inside").read_text() == "kept"


def test_the_fingerprint_names_the_scenarios_added_from_outside(monkeypatch: pytest.MonkeyPatch):
    cache_mod.oracle_fingerprint.cache_clear()
    plain = cache_mod.oracle_fingerprint()
    monkeypatch.setenv("BACKCHANNEL_SCENARIOS", "tests.scenario_recipe.echo_once")
    cache_mod.oracle_fingerprint.cache_clear()
    try:
        assert cache_mod.oracle_fingerprint() != plain
    finally:
        cache_mod.oracle_fingerprint.cache_clear()


def test_the_fingerprint_changes_with_any_source_file_of_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    package = tmp_path / "backchannel" / "oracle"
    package.mkdir(parents=True)
    (package / "check.py").write_text("A = 1\n")
    (package / "schema.json").write_text("{}")
    monkeypatch.setattr(cache_mod, "_locations", lambda name: [package] if name == "backchannel.oracle" else [])
    said = []
    for change in (None, ("check.py", "A = 2\n"), ("schema.json", "[]")):
        if change is not None:
            (package / change[0]).write_text(change[1])
        cache_mod.oracle_fingerprint.cache_clear()
        said.append(cache_mod.oracle_fingerprint())
    cache_mod.oracle_fingerprint.cache_clear()
    assert len(set(said)) == 3


# a fresh process: in this one, other tests have imported the checks already
_ONLY_HITS = """
import sys
from backchannel.proxy.judging.inputs import expand
from backchannel.proxy.judging.parallel import judge_all, tasks_for
from pathlib import Path
outcomes = list(judge_all(tasks_for(expand([sys.argv[1]]), cache=Path(sys.argv[2])), int(sys.argv[3])))
assert all(o.report is not None for o in outcomes), outcomes
loaded = sorted(name for name in sys.modules if ".checks." in name)
print(len(loaded))
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_whose_every_report_is_kept_imports_no_check_and_a_miss_imports_them(tmp_path: Path, jobs: int):
    recordings, kept = corpus(tmp_path / "corpus"), tmp_path / "cache"
    run = [sys.executable, "-c", _ONLY_HITS, str(recordings), str(kept), str(jobs)]
    cold = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert cold.returncode == 0, cold.stderr
    if jobs == 1:  # the checks were imported in this very process, at its first miss
        assert int(cold.stdout) > 20
    warm = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.strip() == "0", "no check module is imported when every report is kept"


def test_a_scenario_that_cannot_be_loaded_ends_a_cached_run_once_not_as_every_files_error(tmp_path: Path):
    recordings = corpus(tmp_path / "corpus")
    env = {**os.environ, "BACKCHANNEL_SCENARIOS": "no_such_scenario_root"}
    for jobs in ("1", "2"):
        said = subprocess.run(
            [*CLI, str(recordings), "--jobs", jobs, "--cache", str(tmp_path / "cache")],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert said.returncode == 2, said.stderr
        assert said.stderr.count("cannot import scenario package no_such_scenario_root.oracle") == 1, said.stderr
        assert said.stdout == ""


def test_a_fifo_a_link_or_an_oversized_file_where_an_entry_should_be_is_a_miss_and_never_hangs(tmp_path: Path):
    kept = JudgeCache.open(tmp_path / "cache")
    outside = tmp_path / "outside.json.z"
    outside.write_bytes(zlib.compress(json.dumps({"fingerprint": kept.fingerprint, "report": REPORT}).encode()))
    fifo, link, large = "aa" * 32, "bb" * 32, "cc" * 32
    for key in (fifo, link, large):
        kept._entry(key).parent.mkdir(exist_ok=True)
    os.mkfifo(kept._entry(fifo))
    kept._entry(link).symlink_to(outside)
    with kept._entry(large).open("wb") as file:
        file.truncate(cache_mod.MAX_ENTRY_BYTES + 1)  # sparse: no disk used
    assert [kept.get(key) for key in (fifo, link, large)] == [None, None, None]


def test_tidying_never_follows_a_link_out_of_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    kept = JudgeCache.open(tmp_path / "cache")
    precious = tmp_path / "precious"
    precious.mkdir()
    for n in range(6):
        (precious / f"file-{n}.txt").write_text("the user's")
    (precious / "old.part").write_text("the user's")
    os.utime(precious / "old.part", (1, 1))
    (kept.folder / "zz").symlink_to(precious, target_is_directory=True)  # a shard folder that is a link
    for n in range(4):
        kept.put(f"{n:02x}" * 32, REPORT)
    (kept.folder / "00" / "linked.json.z").symlink_to(precious / "file-0.txt")
    monkeypatch.setattr(cache_mod, "MAX_ENTRIES", 2)
    JudgeCache.open(tmp_path / "cache")
    assert sorted(p.name for p in precious.iterdir()) == sorted([*(f"file-{n}.txt" for n in range(6)), "old.part"])
    assert len(entries(tmp_path / "cache")) < 4, "the cache's own entries were tidied"


def test_a_linked_oracle_folder_or_marker_is_refused_and_a_linked_shard_folder_is_never_read_or_written(
    tmp_path: Path,
):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("the user's")
    root = tmp_path / "cache"
    kept = JudgeCache.open(root)
    folder = kept.folder
    shutil.rmtree(folder)
    folder.symlink_to(outside, target_is_directory=True)  # the oracle's own folder is a link
    with pytest.raises(cache_mod.CacheError, match="is a link"):
        JudgeCache.open(root)
    folder.unlink()
    folder.mkdir()
    (folder / cache_mod.MARKER).symlink_to(outside / "keep.txt")  # its marker is a link
    with pytest.raises(cache_mod.CacheError, match="is a link"):
        JudgeCache.open(root)
    (folder / cache_mod.MARKER).unlink()
    kept = JudgeCache.open(root)
    key = "c3" * 32
    (folder / key[:2]).symlink_to(outside, target_is_directory=True)  # a shard folder is a link
    kept.put(key, REPORT)
    (outside / f"{key}.json.z").write_bytes(
        zlib.compress(json.dumps({"fingerprint": kept.fingerprint, "report": REPORT}).encode())
    )
    assert kept.get(key) is None, "a linked shard folder is never read through"
    assert sorted(p.name for p in outside.iterdir()) == ["c3" * 32 + ".json.z", "keep.txt"], "nothing written there"
    assert (outside / "keep.txt").read_text() == "the user's"


def test_the_last_line_on_stderr_counts_the_recordings_that_could_not_be_judged_apart(tmp_path: Path):
    recordings, kept = tmp_path / "corpus", tmp_path / "cache"
    recordings.mkdir()
    shutil.copyfile(sorted(REFERENCE.glob("*.sqlite"))[0], recordings / "a.sqlite")
    (recordings / "b.sqlite").write_text("not a recording")
    said = [
        subprocess.run([*CLI, str(recordings), "--cache", str(kept)], capture_output=True, text=True, timeout=120)
        for _ in range(2)
    ]
    assert f"0 of 2 reports read from the cache ({kept}); 1 judged; 1 could not be judged" in said[0].stderr
    assert f"1 of 2 reports read from the cache ({kept}); 0 judged; 1 could not be judged" in said[1].stderr
    empty = subprocess.run(  # a shard that holds none of the two says so too
        [*CLI, str(recordings), "--cache", str(kept), "--shard", "1/64", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(empty.stdout)["summary"]["recordings"] == 0, "the shard chosen holds neither recording"
    assert empty.stderr == f"backchannel: 0 of 0 reports read from the cache ({kept}); 0 judged\n"


def test_a_recording_larger_than_the_hash_bound_is_judged_without_the_cache(tmp_path: Path):
    """A sparse file says it holds 4 GiB (a few KB on disk): hashing it all took minutes, judging it a moment."""
    recordings, kept = tmp_path / "corpus", tmp_path / "cache"
    recordings.mkdir()
    sparse = recordings / "sparse.sqlite"
    shutil.copyfile(REFERENCE / "conformance-toy.sqlite", sparse)
    os.truncate(sparse, 4 * 1024**3)
    assert recording_key(str(sparse)) is None
    linked = recordings / "linked.sqlite"  # a -wal that is a link, even to nothing: judging refuses it, never cached
    shutil.copyfile(REFERENCE / "conformance-toy.sqlite", linked)
    Path(f"{linked}-wal").symlink_to(recordings / "nowhere")
    assert recording_key(str(linked)) is None
    Path(f"{linked}-wal").unlink()
    assert recording_key(str(linked)) is not None
    linked.unlink()
    (outcome,) = judge_all(tasks_for(expand([str(recordings)]), shape="summary", cache=kept), 1)
    assert outcome.report is not None and not outcome.cached
    assert entries(kept) == []
