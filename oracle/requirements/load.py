"""Reading requirements.toml strictly: every key known, every field present and typed, every cited id declared.

An error names the file and the key (`oracle/requirements/requirements.toml: [checks.x] unknown key 'qoute'`), so
whoever edits the file is told exactly where; nothing is guessed or defaulted past what the format documents.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from .anchors import parse_anchor
from .model import AisvsRequirement, NotChecked, Requirement, Requirements, RequirementsError, SuiteCheck

REQUIREMENTS_FILE = "oracle/requirements/requirements.toml"  # as the repository names it: errors say where to edit
_TOP = {"suite", "aisvs", "checks", "not_checked"}
_AISVS = {"version", "source", "requirements"}
_ENTRY = {"quote", "anchor", "unquoted", "suite", "aisvs", "note"}
_NOT_CHECKED = {"quote", "anchor", "reason"}
_CHECK_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_AISVS_ID = re.compile(r"^C[0-9]+\.[0-9]+\.[0-9]+$")


@cache
def load_requirements() -> Requirements:
    """The shipped registry, read once per process."""
    text = resources.files(__package__).joinpath("requirements.toml").read_text(encoding="utf-8")
    return parse_requirements(text, REQUIREMENTS_FILE)


def requirement_of(check_id: str) -> Requirement | None:
    """The shipped entry of one check, or None for a check it does not know (a scenario from elsewhere)."""
    return load_requirements().entries.get(check_id)


def parse_requirements(text: str, source: str) -> Requirements:
    """Read one requirements file's text; `source` names it in every error."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RequirementsError(f"{source}: not valid TOML: {exc}") from exc
    _keys(data, _TOP, _TOP, source, "the top level")
    releases = _suite(_table(data["suite"], source, "[suite]"), source)
    aisvs = _table(data["aisvs"], source, "[aisvs]")
    _keys(aisvs, _AISVS, _AISVS, source, "[aisvs]")
    aisvs_texts = _aisvs_requirements(_table(aisvs["requirements"], source, "[aisvs.requirements]"), source)
    suite_of = {check_id: SuiteCheck(check_id, release) for release, ids in releases.items() for check_id in ids}
    checks = _table(data["checks"], source, "[checks]")
    entries = {
        check_id: _entry(check_id, _table(raw, source, f"[checks.{check_id}]"), suite_of, aisvs_texts, source)
        for check_id, raw in checks.items()
    }
    rows = data["not_checked"]
    if not isinstance(rows, list) or not rows:
        raise RequirementsError(f"{source}: [[not_checked]] must be a non-empty array of tables")
    not_checked = tuple(_not_checked(row, i, source) for i, row in enumerate(rows, start=1))
    return Requirements(
        source=source,
        entries=entries,
        not_checked=not_checked,
        aisvs_version=_text(aisvs, "version", source, "[aisvs]"),
        aisvs_source=_text(aisvs, "source", source, "[aisvs]"),
        suite_releases=releases,
    )


def _entry(
    check_id: str,
    raw: Mapping[str, Any],
    suite_of: Mapping[str, SuiteCheck],
    aisvs_texts: Mapping[str, str],
    source: str,
) -> Requirement:
    where = f"[checks.{check_id}]"
    if not _CHECK_ID.match(check_id):
        raise RequirementsError(f"{source}: {where} is not a kebab-case check id")
    _keys(raw, _ENTRY, set(), source, where)
    if "unquoted" in raw:
        if "quote" in raw or "anchor" in raw:
            raise RequirementsError(f"{source}: {where} has unquoted and a quote or anchor: give one or the other")
        quote = anchor = None
        unquoted: str | None = _text(raw, "unquoted", source, where)
    else:
        if "quote" not in raw or "anchor" not in raw:
            raise RequirementsError(f"{source}: {where} needs quote and anchor (or unquoted, saying why none)")
        quote, anchor, unquoted = _text(raw, "quote", source, where), _anchor(raw, source, where), None
    suite = tuple(_cited(raw, "suite", suite_of, source, where, "is listed under no release in [suite]"))
    aisvs = tuple(
        AisvsRequirement(aisvs_id, text)
        for aisvs_id, text in _cited(raw, "aisvs", aisvs_texts, source, where, "is not in [aisvs.requirements]")
    )
    note = _text(raw, "note", source, where) if "note" in raw else ""
    return Requirement(check_id, quote, anchor, unquoted, tuple(s for _, s in suite), aisvs, note)


def _cited[T](
    raw: Mapping[str, Any], key: str, known: Mapping[str, T], source: str, where: str, unknown: str
) -> list[tuple[str, T]]:
    ids = raw.get(key, [])
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids) or len(set(ids)) != len(ids):
        raise RequirementsError(f"{source}: {where} {key} must be a list of distinct strings")
    for cited in ids:
        if cited not in known:
            raise RequirementsError(f"{source}: {where} {key} {cited!r} {unknown}")
    return [(cited, known[cited]) for cited in ids]


def _not_checked(row: object, index: int, source: str) -> NotChecked:
    where = f"[[not_checked]] #{index}"
    table = _table(row, source, where)
    _keys(table, _NOT_CHECKED, _NOT_CHECKED, source, where)
    return NotChecked(
        quote=_text(table, "quote", source, where),
        anchor=_anchor(table, source, where),
        reason=_text(table, "reason", source, where),
    )


def _suite(raw: Mapping[str, Any], source: str) -> dict[str, tuple[str, ...]]:
    releases: dict[str, tuple[str, ...]] = {}
    seen: dict[str, str] = {}
    for release, ids in raw.items():
        if not isinstance(ids, list) or not all(isinstance(i, str) and _CHECK_ID.match(i) for i in ids):
            raise RequirementsError(f"{source}: [suite] {release!r} must be a list of kebab-case check ids")
        for suite_id in ids:
            if suite_id in seen:
                raise RequirementsError(
                    f"{source}: [suite] {suite_id!r} is listed under {seen[suite_id]!r} and {release!r}"
                )
            seen[suite_id] = release
        releases[release] = tuple(ids)
    return releases


def _aisvs_requirements(raw: Mapping[str, Any], source: str) -> dict[str, str]:
    for aisvs_id, text in raw.items():
        if not _AISVS_ID.match(aisvs_id):
            raise RequirementsError(f"{source}: [aisvs.requirements] {aisvs_id!r} is not an AISVS id like C9.2.1")
        if not isinstance(text, str) or not text.strip():
            raise RequirementsError(f"{source}: [aisvs.requirements] {aisvs_id} must be the requirement's text")
    return dict(raw)


def _anchor(raw: Mapping[str, Any], source: str, where: str) -> str:
    url = _text(raw, "anchor", source, where)
    try:
        parse_anchor(url)
    except ValueError as exc:
        raise RequirementsError(f"{source}: {where} anchor {exc}") from exc
    return url


def _text(raw: Mapping[str, Any], key: str, source: str, where: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RequirementsError(f"{source}: {where} {key} must be a non-empty string")
    return value


def _table(value: object, source: str, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise RequirementsError(f"{source}: {where} must be a table")
    return value


def _keys(raw: Mapping[str, Any], known: set[str], required: set[str], source: str, where: str) -> None:
    for key in raw:
        if key not in known:
            raise RequirementsError(f"{source}: {where} unknown key {key!r} (known: {', '.join(sorted(known))})")
    for key in sorted(required - set(raw)):
        raise RequirementsError(f"{source}: {where} is missing {key!r}")
