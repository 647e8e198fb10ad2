"""Helper for `proxy_bench.py --build`: starts one backchannel build's proxy with that build's own interpreter.

Not meant to be run by hand. proxy_bench.py runs it as `BUILD_PYTHON bench/build_proxy.py ...`, so the proxy of
each build is that build's `Capture` / `start_proxy`, spawning mitmdump with that build's `sys.executable` and its
own installed `backchannel.addons.entry` script. It imports only what the build has, whichever layout it uses
(`backchannel.proxy.run.*` since 01ef495, `backchannel.proxy.capture` / `backchannel.proxy.mitm` before), and
nothing from the bench. Only the standard library and the build's own packages.

  info
      one line: versions, interpreter, the addon's entry script, the source folder and its commit.
  serve --recording R --upstream URL [--run NAME=PLAN_JSON ...] [--max-seconds S]
      opens a Capture on R with these runs and prints one line
      {"ready": true, "pid", "proxy_pid", "proxy_port", "proxy_argv", "runs": {NAME: URL}}; then waits for a line
      "stop" on stdin, end of stdin (the bench died) or --max-seconds, whichever comes first, and closes the capture
      (mitmdump stopped by its own pid with SIGINT, then SIGKILL; the recording finalised); last line
      {"closed": true, "proxy_exit": CODE}.
  startup --dir D --upstream URL [--n N]
      times start_proxy (until the addon's ready line) and RunningProxy.stop (SIGINT until exit) N times, each with
      a fresh recording in D; one line {"start_proxy": [...], "start_proxy_started_in": [...], "stop_sigint": [...]}.

Every line meant for the bench starts with MARKER; anything else on stdout is not read.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path
from types import ModuleType
from typing import Any

MARKER = "BACKCHANNEL-BENCH-BUILD "


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(MARKER + json.dumps(obj) + "\n")
    sys.stdout.flush()


def layout() -> tuple[ModuleType, ModuleType]:
    """(capture module, launcher module) of this build, whichever package layout it has."""
    try:
        from backchannel.proxy.run import capture, launcher
    except ModuleNotFoundError as exc:
        if exc.name != "backchannel.proxy.run":
            raise  # the build is broken, not merely older: say so
        return importlib.import_module("backchannel.proxy.capture"), importlib.import_module("backchannel.proxy.mitm")
    return capture, launcher


def git(cwd: Path, *args: str) -> str:
    """A read-only git command that takes no locks (other people may be using the same repository)."""
    try:
        return subprocess.run(
            ["git", "--no-optional-locks", *args],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=10,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        ).stdout.rstrip()
    except (OSError, subprocess.SubprocessError):
        return ""


def info() -> dict[str, Any]:
    capture, launcher = layout()
    from backchannel.addons import entry

    entry_real = Path(entry.__file__).resolve()  # a strict editable install links each file to its source
    source = entry_real.parent.parent  # <repo>/addons/entry.py
    dirty = git(source, "status", "--porcelain", "--", "addons", "recordings", "proxy").splitlines()
    return {
        "python": sys.executable,
        "python_version": sys.version.split()[0],
        "backchannel": version("backchannel"),
        "mitmproxy": version("mitmproxy"),
        "confdir": str(launcher.confdir()),
        "capture_module": capture.__name__,
        "launcher_module": launcher.__name__,
        "entry": entry.__file__,
        "entry_source": str(entry_real),
        "source": str(source),
        "commit": git(source, "rev-parse", "--short", "HEAD").strip(),
        "product_files_changed_since_commit": len(dirty),
        "product_files_changed": dirty,
        "product_tree_sha256": tree_hash(source),
    }


def tree_hash(source: Path) -> str:
    """A short hash of the product's source files as they are now (committed or not), so a run names the exact
    tree it measured even when the working tree has uncommitted changes."""
    digest = hashlib.sha256()
    for folder in ("addons", "recordings", "proxy"):
        for path in sorted((source / folder).rglob("*.py")):
            digest.update(path.relative_to(source).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def parse_runs(specs: list[str]) -> dict[str, dict[str, Any]]:
    runs: dict[str, dict[str, Any]] = {}
    for spec in specs:
        name, sep, plan = spec.partition("=")
        if not sep or not name:
            raise SystemExit(f"--run wants NAME=PLAN_JSON, got {spec!r}")
        runs[name] = json.loads(plan) if plan else {}
    return runs


def proxy_argv(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")[:-1]
    except OSError:
        return []


def serve(args: argparse.Namespace) -> int:
    capture_mod, _ = layout()
    runs = parse_runs(args.run or [])

    def stop_on_signal(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # unwinds through `with Capture`, which stops mitmdump and finalises

    signal.signal(signal.SIGTERM, stop_on_signal)
    deadline = time.monotonic() + args.max_seconds
    capture = capture_mod.Capture(Path(args.recording), upstream=args.upstream)
    with capture:
        assert capture.proxy is not None
        urls = {name: capture.new_run(name, plan).url for name, plan in runs.items()}
        proxy = capture.proxy
        emit(
            {
                "ready": True,
                "pid": os.getpid(),
                "proxy_pid": proxy.process.pid,
                "proxy_port": proxy.port,
                "proxy_started_in": proxy.started_in,
                "proxy_argv": proxy_argv(proxy.process.pid),
                "runs": urls,
            }
        )
        why = "max-seconds"
        try:
            while (left := deadline - time.monotonic()) > 0:
                ready, _, _ = select.select([sys.stdin], [], [], min(left, 5.0))
                if not ready:
                    if proxy.process.poll() is not None:
                        why = f"mitmdump exited on its own with code {proxy.process.returncode}"
                        break
                    continue
                line = sys.stdin.readline()
                if not line:
                    why = "stdin closed"
                    break
                if line.strip() == "stop":
                    why = "stop"
                    break
        except KeyboardInterrupt:
            why = "signal"
        code = proxy.stop()  # Capture.close() calls it again; a second call only returns the code
    emit({"closed": True, "why": why, "proxy_exit": code})
    return 0


def new_recording(path: Path) -> Path:
    """An empty recording for start_proxy, whichever `store.create` this build has (a meta dict before the
    RecordingInfo of backchannel.recordings.meta, the info after)."""
    from backchannel.recordings import store

    try:
        meta = importlib.import_module("backchannel.recordings.meta")
    except ModuleNotFoundError as exc:
        if exc.name != "backchannel.recordings.meta":
            raise
        legacy_meta: Any = {"tool": "backchannel-bench"}  # typed against the installed build, which may be newer
        return Path(store.create(path, legacy_meta))
    return Path(store.create(path, meta.RecordingInfo(tool="backchannel-bench")))


def startup(args: argparse.Namespace) -> int:
    _, launcher = layout()
    folder = Path(args.dir)
    starts: list[float] = []
    ready_lines: list[float] = []
    stops: list[float] = []
    for i in range(args.n):
        rec = new_recording(folder / f"startup-{i}.sqlite")
        t0 = time.perf_counter()
        proxy = launcher.start_proxy(rec, args.upstream)
        starts.append(time.perf_counter() - t0)
        ready_lines.append(proxy.started_in)
        t1 = time.perf_counter()
        code = proxy.stop()
        stops.append(time.perf_counter() - t1)
        if code not in (0, -2, 130):
            raise SystemExit(f"mitmdump exited with {code}: {proxy.output_tail()[-2000:]}")
    emit({"start_proxy": starts, "start_proxy_started_in": ready_lines, "stop_sigint": stops})
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("info")
    s = sub.add_parser("serve")
    s.add_argument("--recording", required=True)
    s.add_argument("--upstream", required=True)
    s.add_argument("--run", action="append", help="NAME=PLAN_JSON (repeatable)")
    s.add_argument("--max-seconds", type=float, default=3600.0)
    u = sub.add_parser("startup")
    u.add_argument("--dir", required=True)
    u.add_argument("--upstream", required=True)
    u.add_argument("--n", type=int, default=5)
    args = p.parse_args()
    if args.cmd == "info":
        emit(info())
        return 0
    if args.cmd == "serve":
        return serve(args)
    return startup(args)


if __name__ == "__main__":
    raise SystemExit(main())
