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
from typing import Annotated, BinaryIO

import typer

from backchannel.proxy.bridge.forwarder import DEFAULT_TIMEOUT_S, Forwarder, LineWriter, Log
from backchannel.proxy.bridge.framing import read_line

DEFAULT_DRAIN_S = 10.0
CLI_MODULE = "backchannel.proxy.cli"


def stdio_argv(url: str) -> list[str]:
    """The bridge's command line for a run's URL: what a stdio client spawns as its server (`{stdio-argv}`)."""
    return [sys.executable, "-m", CLI_MODULE, "bridge", url]


def standalone_argv(url: str) -> list[str]:
    """The same bridge without the `backchannel` CLI around it (this module run as a script)."""
    return [sys.executable, "-m", __name__, url]


def stderr_log(text: str) -> None:
    print(f"backchannel bridge: {text}", file=sys.stderr, flush=True)


def run_bridge(
    url: str,
    stdin: BinaryIO,
    stdout: BinaryIO,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    drain: float = DEFAULT_DRAIN_S,
    verbose: bool = False,
    log: Log = stderr_log,
) -> int:
    """Forward every line of `stdin` until it closes, then wait for in-flight requests (bounded); returns 0.

    Should a write to `stdout` be stuck (a client that stopped reading), the process exits 0 at once instead.

    Raises:
        ValueError: `url` is not an http(s) URL.
    """
    writer = LineWriter(stdout)
    forwarder = Forwarder(url, writer, timeout=timeout, log=log)
    forwarder.verbose = verbose
    in_flight: list[threading.Thread] = []
    for raw in iter(stdin.readline, b""):
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
) -> None:
    """Be a stdio MCP server for a stdio client: each stdin line POSTed to URL, each answer back as stdout lines."""
    try:
        code = run_bridge(url, sys.stdin.buffer, sys.stdout.buffer, timeout=timeout, drain=drain, verbose=verbose)
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
