"""`--baseline FILE`: expected failures, as the official conformance suite keeps them.

The file is YAML with one key that matters, `expected-failures`: a list of `scenario` (every check of it may fail)
or `scenario:check-id` (that check may fail). A run passes when every failure is listed; a listed entry whose
checks were judged and all pass is stale (the client was fixed: take it out), and fails the run by name. An entry
nothing in this run judged (another shard's scenario) is neither.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .corpus import FAILING

KEY = "expected-failures"
MAX_BYTES = 1024 * 1024  # a baseline is a short list; a bigger file is refused before YAML parses it
_SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
_ENTRY = re.compile(rf"^({_SLUG})(?::({_SLUG}))?$")


class BaselineError(ValueError):
    """A baseline file that cannot be used; the message says which file and what is wrong, on one line."""


@dataclass(slots=True)
class Verdict:
    """What the baseline makes of a run: failures it does not list, entries gone stale, entries not judged here."""

    unexpected: list[str] = field(default_factory=list)  # "recording: scenario:check-id STATUS"
    stale: list[str] = field(default_factory=list)
    unseen: list[str] = field(default_factory=list)
    expected: int = 0  # failures the baseline listed

    @property
    def exit_code(self) -> int:
        return 1 if self.unexpected or self.stale else 0


def _safe_yaml(text: str) -> Any:
    """Safe YAML without anchors and aliases: a baseline is a short list, and aliases nested a few levels deep make
    a few hundred bytes expand into billions of items (the "billion laughs"). PyYAML is imported here, when a
    baseline is given: importing it was a tenth of every `judge`'s start-up."""
    import yaml

    class NoAliases(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type information
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.events.AliasEvent):
                event = self.get_event()
                raise yaml.composer.ComposerError(
                    None, None, "aliases (*name) are not allowed in a baseline", event.start_mark
                )
            return super().compose_node(parent, index)

    try:
        return yaml.load(text, Loader=NoAliases)  # noqa: S506 - a SafeLoader, minus aliases
    except yaml.YAMLError as exc:
        raise _NotYaml(exc) from exc


class _NotYaml(Exception):
    """PyYAML's error, carried out of `_safe_yaml` without naming PyYAML's types where it is not imported."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))


def load_baseline(path: Path) -> tuple[str, ...]:
    """The entries of a baseline file, in file order, checked; anything else is a BaselineError."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise BaselineError(f"baseline {path}: cannot read it ({exc.strerror or exc})") from exc
    if len(raw) > MAX_BYTES:
        raise BaselineError(f"baseline {path} is larger than {MAX_BYTES} bytes; a baseline is a short list")
    try:
        data: Any = _safe_yaml(raw.decode("utf-8"))
    except (_NotYaml, UnicodeDecodeError, RecursionError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BaselineError(f"baseline {path} is not valid YAML: {first}") from exc
    if not isinstance(data, dict) or KEY not in data:
        raise BaselineError(f"baseline {path} has no {KEY!r} key (a mapping with a list of scenario[:check-id])")
    entries = data[KEY]
    if entries is None:
        return ()
    if not isinstance(entries, list):
        raise BaselineError(f"baseline {path}: {KEY!r} must be a list of strings, not {type(entries).__name__}")
    for i, item in enumerate(entries, 1):
        if not isinstance(item, str) or not _ENTRY.match(item):
            shown = repr(item)[:80] if isinstance(item, str) else f"a {type(item).__name__}"
            raise BaselineError(f"baseline {path}: entry {i} ({shown}) is not 'scenario' or 'scenario:check-id'")
    return tuple(dict.fromkeys(entries))


def _covers(entry: str, scenario: str, check_id: str) -> bool:
    return entry in (scenario, f"{scenario}:{check_id}")


class Tally:
    """The baseline's count, one recording at a time: a corpus streamed keeps only this, not every result."""

    def __init__(self, entries: tuple[str, ...]) -> None:
        self.entries = entries
        self.verdict = Verdict()
        self.judged = {entry: False for entry in entries}  # entry -> did it cover any judged result
        self.failing = {entry: False for entry in entries}  # entry -> did it cover a failing one

    def add(self, item: dict[str, Any]) -> None:
        """One recording's entry (its name and report, or the error that kept it from being judged)."""
        for result in item.get("report", {}).get("results", []):
            scenario, check_id, status = str(result.get("scenario")), str(result.get("id")), result.get("status")
            covering = [e for e in self.entries if _covers(e, scenario, check_id)]
            for entry in covering:
                self.judged[entry] = True
                self.failing[entry] = self.failing[entry] or status in FAILING
            if status in FAILING:
                if covering:
                    self.verdict.expected += 1
                else:
                    self.verdict.unexpected.append(f"{item['name']}: {scenario}:{check_id} {status}")

    def result(self) -> Verdict:
        """What the baseline makes of every recording added (call once, after the last)."""
        verdict = self.verdict
        verdict.stale.extend(e for e in self.entries if self.judged[e] and not self.failing[e])
        verdict.unseen.extend(e for e in self.entries if not self.judged[e])
        return verdict


def apply(entries: tuple[str, ...], recordings: list[dict[str, Any]]) -> Verdict:
    """Judge the run against the baseline: every failing result must be covered by an entry, every entry that
    matched a judged result must still cover a failing one."""
    tally = Tally(entries)
    for item in recordings:
        tally.add(item)
    return tally.result()


def lines(verdict: Verdict) -> list[str]:
    """What the baseline says about the run, for people."""
    out = [f"baseline: {verdict.expected} expected failure(s), {len(verdict.unexpected)} unexpected"]
    out += [f"unexpected failure: {line}" for line in verdict.unexpected]
    out += [f"stale baseline entry (now passes; remove it): {entry}" for entry in verdict.stale]
    out += [f"baseline entry not judged in this run: {entry}" for entry in verdict.unseen]
    return out


def as_dict(verdict: Verdict) -> dict[str, Any]:
    return {
        "expected": verdict.expected,
        "unexpected": list(verdict.unexpected),
        "stale": list(verdict.stale),
        "unseen": list(verdict.unseen),
        "exit_code": verdict.exit_code,
    }
