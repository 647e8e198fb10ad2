"""A model stand-in writing into a real recording, for the tests that drive it with the providers' own SDKs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pytest

from backchannel.proxy.model.script import ModelScript
from backchannel.proxy.model.server import ModelStandIn
from backchannel.recordings import load, store
from backchannel.recordings.meta import RecordingInfo
from backchannel.recordings.model import ModelExchange
from backchannel.recordings.rows import RunRow

RUN = "run-model"
API_KEY = "sk-ant-api03-" + "Q" * 40  # key-shaped, so the test proves the recording never holds it
SCRIPT = ModelScript.from_data(
    {"tool": "get_repo_status", "server": "backchannel", "arguments": {"repo": "demo"}, "answer": "All clean."}
)


@dataclass
class ModelLab:
    """A running stand-in and the recording it writes; `exchanges()` stops both and reads the recording back."""

    stand_in: ModelStandIn
    url: str
    path: Path
    writer: store.RecordingWriter

    def exchanges(self) -> tuple[ModelExchange, ...]:
        self.stand_in.stop()
        self.writer.flush()
        self.writer.close()
        store.finalize(self.path)
        return load(self.path).model_exchanges


def start_lab(
    tmp_path: Path, script: ModelScript = SCRIPT, on_final: Callable[[], None] | None = None, **limits: int
) -> ModelLab:
    path = tmp_path / "model.sqlite"
    store.create(path, RecordingInfo(nonce="model-test", tool_version="test"))
    writer = store.RecordingWriter(path)
    writer.insert(RunRow(id=RUN, ordinal=1, name="agent", scenario=None, upstream="http://127.0.0.1:9/mcp", plan={}))
    stand_in = ModelStandIn(script, writer.insert, run_id=RUN, on_final=on_final, **limits)
    return ModelLab(stand_in, stand_in.start(), path, writer)


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[ModelLab]:
    running = start_lab(tmp_path)
    try:
        yield running
    finally:
        running.stand_in.stop()
        running.writer.close()


KEY_HEADERS = ("x-api-key", "authorization", "x-goog-api-key")


class _Closable(Protocol):
    def close(self) -> None: ...


_OPENED: list[_Closable] = []  # SDK clients a test made: closed when it ends


def opened[C: _Closable](client: C) -> C:
    """An official SDK client, closed when the test ends: its connection pool otherwise keeps a socket open until
    the garbage collector finds it, and the ResourceWarning then fails whichever test is running."""
    _OPENED.append(client)
    return client


@pytest.fixture(autouse=True)
def _close_sdk_clients() -> Iterator[None]:
    yield
    while _OPENED:
        _OPENED.pop().close()


def assert_key_redacted(rows: tuple[ModelExchange, ...]) -> None:
    """Every row carried the key in a key header, and the recording holds "[redacted]" there and the key nowhere."""
    assert rows
    for row in rows:
        carried = [value for name, value in row.request_headers if name in KEY_HEADERS]
        assert carried and all("[redacted]" in value for value in carried), row.request_headers
        seen = repr(row.request_headers).encode() + (row.request_body or b"") + row.path.encode()
        assert API_KEY.encode() not in seen
