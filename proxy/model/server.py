"""The model stand-in served under uvicorn in a background thread, on loopback only, like the scripted endpoint."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType

from backchannel.proxy.endpoint.serving import STOP_TIMEOUT_S, LoopbackServer, serve_loopback
from backchannel.proxy.model.app import DEFAULT_BODY_LIMIT, DEFAULT_RECORD_LIMIT, ModelApp
from backchannel.proxy.model.script import ModelScript
from backchannel.recordings.rows import ModelExchangeRow

__all__ = ["DEFAULT_BODY_LIMIT", "DEFAULT_RECORD_LIMIT", "ModelStandIn"]


class ModelStandIn:
    """A scripted model at `http://127.0.0.1:PORT`: `start()` returns that base URL, `stop()` ends it (bounded).

    Every request becomes one `ModelExchangeRow` handed to `sink` (for a recording: its writer's `insert`).
    """

    def __init__(
        self,
        script: ModelScript,
        sink: Callable[[ModelExchangeRow], None],
        *,
        run_id: str,
        body_limit: int = DEFAULT_BODY_LIMIT,
        record_limit: int = DEFAULT_RECORD_LIMIT,
        host: str = "127.0.0.1",
        port: int = 0,
        on_final: Callable[[], None] | None = None,
    ) -> None:
        self.app = ModelApp(
            script, sink, run_id=run_id, body_limit=body_limit, record_limit=record_limit, on_final=on_final
        )
        self._host = host
        self._port = port
        self._server: LoopbackServer | None = None
        self.url: str | None = None

    def start(self) -> str:
        """Serve and return the base URL once it accepts connections (again: the same URL).

        Raises:
            ValueError: the host is not IPv4 loopback.
            OSError: the port cannot be bound.
            TimeoutError: the server did not start in time.
        """
        if self._server is None:
            self._server = serve_loopback(self.app, self._host, self._port, what="model stand-in")
            self.url = f"http://{self._host}:{self._server.port}"
        assert self.url is not None
        return self.url

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Stop serving, waiting at most about `timeout` seconds; calling it again is harmless.

        Raises:
            TimeoutError: the server thread was still running after a forced exit.
        """
        server, self._server = self._server, None
        if server is not None:
            server.stop(timeout)

    def __enter__(self) -> ModelStandIn:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"ModelStandIn(url={self.url!r})"
