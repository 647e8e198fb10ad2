"""`explore FILE` serves a recording in Datasette on 127.0.0.1 and prints its URL; without the extra, one line, exit 2.

The README's "Explore a recording" section quotes EXPLORE_EXAMPLE; once the CLI registers `explore`, the test below
runs it exactly as written.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from backchannel.recordings import load

ROOT = Path(__file__).resolve().parents[3]
FLAWED = ROOT / "recordings" / "reference" / "mrtr-provenance-toy-flawed.sqlite"
EXPLORE_EXAMPLE = "backchannel explore recordings/reference/mrtr-provenance-toy-flawed.sqlite --port 0"
# the command as a library call, so these tests need no CLI registration
EXPLORE = [
    sys.executable,
    "-c",
    "import typer; from backchannel.proxy.explore.command import explore_command; typer.run(explore_command)",
]
WITHOUT_DATASETTE = [
    sys.executable,
    "-c",
    "import sys; sys.modules['datasette'] = None; import typer;"  # as if the extra were not installed
    " from backchannel.proxy.explore.command import explore_command; typer.run(explore_command)",
]
START_TIMEOUT_S = 30.0


def first_line(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], START_TIMEOUT_S)
    if not ready:
        process.kill()
        _, err = process.communicate(timeout=5)
        pytest.fail(f"explore printed no URL in {START_TIMEOUT_S:.0f} s; its stderr: {err[-2000:]}")
    return process.stdout.readline().strip()


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)  # Ctrl-C: explore stops Datasette by its pid and returns
    try:
        process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate(timeout=5)


def datasette_children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid and b"datasette" in cmdline:
                found.append(int(entry.name))
    return found


@pytest.fixture
def exploring(request: pytest.FixtureRequest) -> Iterator[tuple[subprocess.Popen[str], str]]:
    process = subprocess.Popen([*request.param], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        yield process, first_line(process)
    finally:
        stop(process)


def fetch_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - our own loopback server
        return json.loads(response.read())


@pytest.mark.parametrize("exploring", [[*EXPLORE, str(FLAWED), "--port", "0"]], indirect=True)
def test_explore_prints_a_loopback_url_whose_canned_query_answers_as_json_and_ctrl_c_stops_datasette(exploring):
    process, url = exploring
    assert url == f"http://127.0.0.1:{url.split(':')[2].split('/')[0]}/{FLAWED.stem}"
    rows = fetch_json(f"{url}/mutated_messages.json?_shape=array")
    assert isinstance(rows, list)
    assert [row["seq"] for row in rows] == [m.seq for m in load(FLAWED).messages if m.mutation]
    children = datasette_children(process.pid)
    assert children, "Datasette runs as explore's child"
    stop(process)
    assert process.returncode == 0
    assert not datasette_children(process.pid)
    for pid in children:
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]


@pytest.mark.parametrize("exploring", [[*EXPLORE, str(FLAWED)]], indirect=True)
def test_the_database_is_served_immutable_so_datasette_refuses_writes(exploring):
    _, url = exploring
    database = fetch_json(f"{url}.json")
    assert isinstance(database, dict) and database["database"] == FLAWED.stem
    info = fetch_json(url.rsplit("/", 1)[0] + "/-/databases.json")
    assert isinstance(info, list) and info[0]["is_mutable"] is False


def test_without_the_extra_explore_names_the_pip_command_in_one_line_and_exits_2():
    done = subprocess.run([*WITHOUT_DATASETTE, str(FLAWED)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "backchannel: Datasette is not installed; install the extra: pip install 'backchannel[explore]'"
    ]


def test_a_file_that_is_not_a_recording_is_refused_in_one_line_with_exit_2(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database\x1b[31m")
    done = subprocess.run([*EXPLORE, str(junk)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("backchannel: ")
    assert "\x1b" not in done.stderr


def test_the_readme_example_runs_as_written():
    argv = shlex.split(EXPLORE_EXAMPLE)
    binary = Path(sys.executable).with_name(argv[0])
    process = subprocess.Popen(
        [str(binary), *argv[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ},
    )
    try:
        url = first_line(process)
        rows = fetch_json(f"{url}/mutated_messages.json?_shape=array")
        assert isinstance(rows, list) and rows
    finally:
        stop(process)


def test_sigterm_stops_explore_like_ctrl_c_and_leaves_no_temp_folder(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    process = subprocess.Popen(
        [*EXPLORE, str(FLAWED), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        first_line(process)
        assert list(tmp_path.glob("backchannel-explore-*")), "the metadata folder exists while it serves"
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)
    assert process.returncode == 0
    assert not list(tmp_path.glob("backchannel-explore-*"))
