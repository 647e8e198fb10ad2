"""A replay of each committed SDK reference serves the same SDK client, run by run, to the same exit code and the
same terminal output (the server's origin aside) as when it was recorded: the client side is served byte for byte,
MRTR rounds included."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest

from backchannel.oracle.terminal import raw_bytes
from backchannel.proxy.replay.session import ReplayError, load_recording, serve

from .clients import SDK_REFERENCES, client_argv
from .conftest import REFERENCE


def origin(url: str | None) -> bytes:
    parts = urlsplit(url or "")
    return f"{parts.scheme}://{parts.netloc}".encode()


def lines(stdout: bytes, server_origin: bytes) -> list[bytes]:
    """The output with the server's origin (the driver prints it) made neutral; sorted, because a client that calls
    tools concurrently prints their results in whichever order they finish."""
    return sorted(stdout.replace(server_origin, b"<server>").splitlines())


@pytest.mark.parametrize("name", sorted(SDK_REFERENCES))
def test_each_recorded_client_run_replays_to_the_same_exit_code_and_output(name):
    rec = load_recording(REFERENCE / f"{name}.sqlite")
    argv = client_argv(SDK_REFERENCES[name])
    runs = [r for r in rec.runs if r.client_argv is not None]
    anomalies: list[tuple[str, str, str]] = []
    with serve(rec, runs[0], speed=0, on_anomaly=lambda *a: anomalies.append(a)) as replay:
        for run in runs:
            command = [part.replace("{url}", replay.run_url(run.id)) for part in argv]
            result = subprocess.run(command, capture_output=True, timeout=60)
            assert result.returncode == run.exit_code, (run.name, result.stderr[-2000:])
            recorded = lines(raw_bytes(rec, run.id, "stdout"), origin(run.detail.url))
            assert lines(result.stdout, replay.base_url.encode()) == recorded, run.name
    assert anomalies == []


def test_an_unreadable_file_or_unknown_run_is_a_replay_error(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_text("junk")
    with pytest.raises(ReplayError, match="not a SQLite database"):
        load_recording(junk)


def anomalies_into(found: list[tuple[str, str, str]]) -> Callable[[str, str, str], None]:
    return lambda run_id, kind, detail: found.append((run_id, kind, detail))


def test_an_sdk_client_that_starts_over_is_served_again_only_with_allow_repeats():
    rec = load_recording(REFERENCE / "mrtr-provenance-py-sdk.sqlite")
    control = next(r for r in rec.runs if r.name == "control")
    argv = client_argv("py")
    for allow_repeats, second_exit in ((True, 0), (False, 1)):
        anomalies: list[tuple[str, str, str]] = []
        with serve(rec, control, speed=0, allow_repeats=allow_repeats, on_anomaly=anomalies_into(anomalies)) as r:
            command = [part.replace("{url}", r.url) for part in argv]
            first = subprocess.run(command, capture_output=True, timeout=60)
            second = subprocess.run(command, capture_output=True, timeout=60)
        assert first.returncode == 0
        assert second.returncode == second_exit, second.stderr[-1000:]
        assert bool(anomalies) is not allow_repeats
        if not allow_repeats:
            assert "every matching recorded reply was already used" in anomalies[0][2]
