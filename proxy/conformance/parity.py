"""The cross-check: the official suite's client scenarios and backchannel's scenarios, run against the same SDK drivers,
their verdicts compared on every shared check id and written to docs/conformance-parity.md.

Usage: python -m backchannel.proxy.conformance.parity [--check] [--out PATH]   (scripts/conformance-parity runs it)

Without `--check` it writes the page. With `--check` it writes nothing and exits 1 when the page differs from what
this run produces, or when a difference has no committed reason (`reasons.REASONS`), naming each. Every run is a
child process (the suite's mock per scenario, backchannel's endpoint and mitmdump per check), so they run side by
side, a few at a time.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.metadata
import json
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from backchannel.proxy.clients.drivers.paths import clients_dir, node_driver, py_driver, repo_root
from backchannel.proxy.conformance import check_run, suite
from backchannel.proxy.conformance.reasons import REASONS, Reason
from backchannel.proxy.conformance.verdicts import AGREE, DIFFER, NOT_COMPARED, Row, compare, our_display

# backchannel's scenarios run against each driver, each with its flags; the session rules come with every one
OUR_SCENARIOS: tuple[tuple[str, tuple[str, ...]], ...] = (("conformance", ()), ("mrtr-provenance", ()))
WORKERS = 4  # child processes at once: the suite's mocks are light, a backchannel check is a proxy and a client
PAGE = Path("docs") / "conformance-parity.md"


@dataclass(frozen=True)
class Driver:
    """One SDK behind its contract driver: the table's name, the SDK and version, the argv before the URL."""

    key: str
    sdk: str
    argv: tuple[str, ...]


@dataclass(frozen=True)
class DriverParity:
    driver: Driver
    rows: tuple[Row, ...]
    suite_only: tuple[suite.SuiteCheck, ...]


def drivers() -> list[Driver]:
    """Both bundled SDK drivers, as installed (the TypeScript one needs scripts/install-clients).

    Raises:
        suite.SuiteMissing: The TypeScript SDK driver is not installed.
    """
    node = node_driver()
    node_path = shutil.which("node")
    base = clients_dir()
    if node is None or node_path is None or base is None:
        raise suite.SuiteMissing("the TypeScript SDK driver is not installed: run scripts/install-clients")
    package = base / "node" / "node_modules" / "@modelcontextprotocol" / "client" / "package.json"
    ts_version = json.loads(package.read_text(encoding="utf-8"))["version"]
    return [
        Driver("python", f"Python SDK `mcp` {importlib.metadata.version('mcp')}", tuple(py_driver())),
        # an absolute node: the suite runs the command through a shell, whose PATH is not ours to assume
        Driver("typescript", f"TypeScript SDK `@modelcontextprotocol/client` {ts_version}", (node_path, *node[1:])),
    ]


def run_all(found: suite.Suite, chosen: Sequence[Driver]) -> list[DriverParity]:
    """Every suite scenario and every backchannel scenario against every driver, then the comparison per driver."""
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        theirs: dict[str, list[Future[dict[str, suite.SuiteCheck]]]] = {}
        ours: dict[str, list[Future[dict[str, check_run.OurCheck]]]] = {}
        for driver in chosen:
            # backchannel's checks take longest: started first, they do not end up the tail
            ours[driver.key] = [
                pool.submit(check_run.run_scenario, name, driver.argv, options) for name, options in OUR_SCENARIOS
            ]
        for driver in chosen:
            theirs[driver.key] = [pool.submit(suite.run_scenario, found, name, driver.argv) for name in suite.SCENARIOS]
        return [compared(d, [f.result() for f in theirs[d.key]], [f.result() for f in ours[d.key]]) for d in chosen]


def compared(
    driver: Driver,
    theirs: Sequence[Mapping[str, suite.SuiteCheck]],
    ours: Sequence[Mapping[str, check_run.OurCheck]],
) -> DriverParity:
    merged: dict[str, suite.SuiteCheck] = {}
    for scenario in theirs:
        for check_id, check in scenario.items():
            if check_id not in merged or suite.SEVERITY[check.status] > suite.SEVERITY[merged[check_id].status]:
                merged[check_id] = check
    by_id: dict[str, list[check_run.OurCheck]] = {}
    for report in ours:
        for check_id, result in report.items():
            by_id.setdefault(check_id, []).append(result)
    rows = compare(merged, by_id)
    shared = {row.suite_id for row in rows}
    only = tuple(merged[i] for i in sorted(merged) if i not in shared)
    return DriverParity(driver, tuple(rows), only)


def explains(reason: Reason | None, row: Row) -> bool:
    """Whether a committed reason is about this row: backchannel's id and the very pair of verdicts."""
    return reason is not None and reason.our_id == row.our_id and (reason.suite, reason.ours) == row.pair


def unexplained(parities: Sequence[DriverParity], reasons: Mapping[str, Reason] = REASONS) -> list[str]:
    """Each difference no committed reason explains (no reason for the id, or one for another pair of verdicts)."""
    found = []
    for parity in parities:
        for row in parity.rows:
            if row.outcome == DIFFER and not explains(reasons.get(row.suite_id), row):
                found.append(
                    f"{parity.driver.key}: {row.suite_id} vs {row.our_id}: suite {row.suite.status}, backchannel "
                    f"{our_display(row.ours)} (class {row.pair[1]}) has no reason in proxy/conformance/reasons.py"
                )
    return found


def unused(parities: Sequence[DriverParity], reasons: Mapping[str, Reason] = REASONS) -> list[str]:
    """Reasons no difference of this run needs: stale, once the two tools agree there (or the id is gone)."""
    needed = {row.suite_id for p in parities for row in p.rows if explains(reasons.get(row.suite_id), row)}
    return sorted(set(reasons) - needed)


def render(parities: Sequence[DriverParity], reasons: Mapping[str, Reason] = REASONS) -> str:
    """The page: how verdicts are compared, one table per driver, then each difference with its reason."""
    scenarios = ", ".join(f"`{name}`" for name in suite.SCENARIOS)
    ours = ", ".join(f"`{name}`" for name, _ in OUR_SCENARIOS)
    lines = [
        "# Parity with the official conformance suite",
        "",
        "Written by `scripts/conformance-parity` from a live run; `tests/proxy/conformance/test_parity.py` runs it",
        "again and holds this page equal to what it produces (do not edit by hand: the reasons live in",
        "`proxy/conformance/reasons.py`).",
        "",
        f"- The suite: `@modelcontextprotocol/conformance@{suite.SUITE_VERSION}`, client scenarios {scenarios}, at",
        f"  `--spec-version {suite.SPEC_VERSION}`, its mocks bound to 127.0.0.1; verdicts read from its `checks.json`.",
        f"- backchannel: `backchannel check --scenario S --format json` for S in {ours}, with the session rules.",
        "- The clients: both bundled SDK drivers, speaking the suite's driver contract (`MCP_CONFORMANCE_SCENARIO`,",
        "  the URL last) wherever it is set (the suite, backchannel's `conformance`), their own contract elsewhere.",
        "",
        "A check id is shared when both tools report it, or when backchannel tests the same sentence under another",
        "id (`proxy/conformance/verdicts.py` `ALIASES`; each of its ids gets a row). SUCCESS meets PASS (or a probe's",
        "REFUTED), FAILURE meets FAIL (or CONFIRMED), WARNING meets WARN, SKIPPED meets SKIP. A backchannel PASS that",
        "carries an observation says more than SUCCESS and is listed as a difference. Where one side skipped (never",
        "exercised the rule) the row is *not compared*. Of several backchannel scenarios, the most decisive result",
        "speaks for the id.",
    ]
    for parity in parities:
        counts = {kind: sum(row.outcome == kind for row in parity.rows) for kind in (AGREE, DIFFER, NOT_COMPARED)}
        lines += [
            "",
            f"## {parity.driver.sdk}",
            "",
            f"{len(parity.rows)} shared ids: {counts[AGREE]} agree, {counts[DIFFER]} differ, "
            f"{counts[NOT_COMPARED]} not compared.",
            "",
            "| suite id | backchannel id | suite | backchannel | outcome |",
            "|---|---|---|---|---|",
        ]
        for row in parity.rows:
            same = "the same" if row.our_id == row.suite_id else f"`{row.our_id}`"
            mark = f"**{row.outcome}**" if row.outcome == DIFFER else row.outcome
            lines.append(f"| `{row.suite_id}` | {same} | {row.suite.status} | {our_display(row.ours)} | {mark} |")
        if parity.suite_only:
            only = ", ".join(f"`{c.id}` {c.status}" for c in parity.suite_only)
            lines += ["", f"Checked by the suite only: {only}."]
    differing = sorted({(row.suite_id, row.our_id) for p in parities for row in p.rows if row.outcome == DIFFER})
    lines += ["", "## Differences and their reasons"]
    if not differing:
        lines += ["", "None."]
    for check_id, our_id in differing:
        reason = reasons.get(check_id)
        lines += ["", f"### `{check_id}`" + ("" if our_id == check_id else f" and `{our_id}`"), ""]
        if reason is None or reason.our_id != our_id:
            lines.append("No reason is recorded: an unexplained difference.")
            continue
        lines += [reason.why, "", f"From [{reason.source}]({reason.anchor}):", ""]
        lines += [f"> {quote}" for quote in reason.quotes]
    return "\n".join(_quoted_paragraphs(lines)) + "\n"


def _quoted_paragraphs(lines: Sequence[str]) -> list[str]:
    """Consecutive quotes as separate block quotes (a blank `>` line between them)."""
    out: list[str] = []
    for line in lines:
        if line.startswith("> ") and out and out[-1].startswith("> "):
            out.append(">")
        out.append(line)
    return out


def main(argv: Sequence[str] | None = None, runner: Callable[[], list[DriverParity]] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/conformance-parity", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the page instead of writing it")
    parser.add_argument("--out", type=Path, help=f"the page (default: {PAGE} in this checkout)")
    args = parser.parse_args(argv)
    root = repo_root()
    page = args.out or ((root / PAGE) if root else PAGE)
    try:
        parities = runner() if runner else run_all(suite.installed(), drivers())
    except suite.SuiteMissing as exc:
        print(f"conformance-parity: {exc}", file=sys.stderr)
        return 2
    text = render(parities)
    problems = unexplained(parities) + [f"stale reason: {i} (no difference needs it)" for i in unused(parities)]
    for parity in parities:
        counts = {kind: sum(row.outcome == kind for row in parity.rows) for kind in (AGREE, DIFFER, NOT_COMPARED)}
        tally = ", ".join(f"{n} {k}" for k, n in counts.items())
        print(f"{parity.driver.key}: {len(parity.rows)} shared ids: {tally}")
    if args.check:
        written = page.read_text(encoding="utf-8") if page.is_file() else ""
        if written != text:
            changed = difflib.unified_diff(written.splitlines(), text.splitlines(), str(page), "this run", lineterm="")
            print("\n".join(list(changed)[:60]))
            problems.append(f"{page} differs from this run (above): run scripts/conformance-parity to write it")
    else:
        page.write_text(text, encoding="utf-8")
        print(f"wrote {page}")
    for problem in problems:
        print(f"conformance-parity: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
