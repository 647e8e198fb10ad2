"""`backchannel bridge URL`: the stdio server process, its loop over stdin, and the command line for a run.

stdin is read line by line; each line goes to its own forwarding thread (requests run concurrently). When stdin
closes, the bridge waits for in-flight requests (at most `--drain` seconds) and exits 0. stdout carries nothing
but the server's messages (and the bridge's JSON-RPC errors for requests no answer can reach); logs go to stderr.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, BinaryIO

import typer

from backchannel.proxy.bridge.forwarder import DEFAULT_TIMEOUT_S, Forwarder, LineWriter, Log
from backchannel.proxy.bridge.framing import error_line, read_line, top_level_members
from backchannel.recordings.safe_text import neutralise

DEFAULT_DRAIN_S = 10.0
# the longest line forwarded: the proxy's own default bound on a body (--max-body), so one line is one message and
# never the bridge's memory (a line is read at most this far; the rest of a longer one is read and dropped in chunks)
DEFAULT_MAX_LINE = 16 * 1024 * 1024
SCAN_BYTES = 1024 * 1024  # of a line over the limit, how much is kept to find its id
CHUNK = 64 * 1024
INVALID_REQUEST = -32600
CLI_MODULE = "backchannel.proxy.cli"


def stdio_argv(url: str) -> list[str]:
    """The bridge's command line for a run's URL: what a stdio client spawns as its server (`{stdio-argv}`)."""
    return [sys.executable, "-m", CLI_MODULE, "bridge", url]


def standalone_argv(url: str) -> list[str]:
    """The same bridge without the `backchannel` CLI around it (this module run as a script)."""
    return [sys.executable, "-m", __name__, url]


def stderr_log(text: str) -> None:
    # a log line may quote the server (an error's message): its control characters are shown, never acted on
    print(f"backchannel bridge: {neutralise(text)}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class TooLong:
    """A line over the limit: its first bytes (to find its id) and its whole size; it is never forwarded."""

    head: bytes
    size: int


def bounded_lines(stdin: BinaryIO, limit: int) -> Iterator[bytes | TooLong]:
    """stdin's lines, each read at most `limit` bytes far: a longer line comes as `TooLong`, its rest dropped."""
    while raw := stdin.readline(limit + 1):
        if len(raw) <= limit or raw.endswith(b"\n"):
            yield raw  # a whole line (the last may lack its newline)
            continue
        head, size = raw[:SCAN_BYTES], len(raw)
        del raw  # the line is not kept: only its head, while the rest is read off and dropped
        while rest := stdin.readline(CHUNK):
            size += len(rest)
            if rest.endswith(b"\n"):
                break
        yield TooLong(head, size)


def refuse_too_long(line: TooLong, limit: int, writer: LineWriter, log: Log) -> None:
    """Answer a request on a line over the limit with a JSON-RPC error for its id (a stdio client would otherwise
    wait on that id for ever); a line whose id cannot be read, or a response, is only logged."""
    names, request_id = top_level_members(line.head)
    why = f"a line of {line.size} bytes is over the bridge's limit of {limit} (--max-line); not forwarded"
    if request_id is not None and not names & {"result", "error"}:
        writer.write(error_line(request_id, INVALID_REQUEST, f"backchannel bridge: {why}"))
        log(f"{why}; answered id {request_id!r} with an error")
    else:
        log(f"{why}; no request id in its first {len(line.head)} bytes to answer")


def run_bridge(
    url: str,
    stdin: BinaryIO,
    stdout: BinaryIO,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    drain: float = DEFAULT_DRAIN_S,
    verbose: bool = False,
    log: Log = stderr_log,
    max_line: int = DEFAULT_MAX_LINE,
) -> int:
    """Forward every line of `stdin` until it closes, then wait for in-flight requests (bounded); returns 0.

    A line over `max_line` bytes is not forwarded: a request on it is answered with a JSON-RPC error for its id.
    Should a write to `stdout` be stuck (a client that stopped reading), the process exits 0 at once instead.

    Raises:
        ValueError: `url` is not an http(s) URL.
    """
    writer = LineWriter(stdout)
    forwarder = Forwarder(url, writer, timeout=timeout, log=log)
    forwarder.verbose = verbose
    in_flight: list[threading.Thread] = []
    for raw in bounded_lines(stdin, max_line):
        if isinstance(raw, TooLong):
            refuse_too_long(raw, max_line, writer, log)
            continue
        incoming = read_line(raw)
        if incoming is None:
            continue
        if writer.closed:
            log("the client's stdout is closed: stopping")
            break
        thread = threading.Thread(target=forwarder.forward, args=(incoming,), name="bridge-post", daemon=True)
        thread.start()
        in_flight = [t for t in in_flight if t.is_alive()] + [thread]
    deadline = time.monotonic() + drain
    for thread in in_flight:
        thread.join(max(0.0, deadline - time.monotonic()))
    clean = writer.close()
    left = sum(t.is_alive() for t in in_flight)
    if left:
        log(f"stdin closed; {left} request(s) still in flight after {drain:g} s: ending without them")
    if not clean:  # a thread is stuck writing to stdout: interpreter shutdown must not wait on it
        log("stdout is not being read: exiting at once")
        sys.stderr.flush()
        os._exit(0)
    return 0


def bridge_command(
    url: Annotated[str, typer.Argument(help="The Streamable HTTP URL to forward to (a run URL of the proxy).")],
    timeout: Annotated[
        float, typer.Option(help="Seconds an answer may stay silent before its request gets a JSON-RPC error.", min=0.1)
    ] = DEFAULT_TIMEOUT_S,
    drain: Annotated[
        float, typer.Option(help="Seconds to wait for in-flight requests once stdin closes, then exit 0.", min=0)
    ] = DEFAULT_DRAIN_S,
    verbose: Annotated[bool, typer.Option("--verbose", help="Log every POST and its status on stderr.")] = False,
    max_line: Annotated[
        int,
        typer.Option(
            help="Longest stdin line forwarded, in bytes; a request on a longer line gets a JSON-RPC error.", min=1
        ),
    ] = DEFAULT_MAX_LINE,
) -> None:
    """Be a stdio MCP server for a stdio client: each stdin line POSTed to URL, each answer back as stdout lines."""
    try:
        code = run_bridge(
            url, sys.stdin.buffer, sys.stdout.buffer, timeout=timeout, drain=drain, verbose=verbose, max_line=max_line
        )
    except ValueError as exc:
        stderr_log(str(exc))
        raise typer.Exit(2) from exc
    except KeyboardInterrupt:
        code = 0
    raise typer.Exit(code)


def main() -> None:
    """This module as a script: the bridge without the rest of the `backchannel` CLI."""
    typer.run(bridge_command)


if __name__ == "__main__":
    main()
