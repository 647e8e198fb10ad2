"""What the requirements registry holds: one entry per check, the suite's and AISVS's ids it cites, and the
requirements deliberately not checked."""

from __future__ import annotations

from dataclasses import dataclass

from backchannel.recordings.errors import UserError


class RequirementsError(UserError):
    """The requirements file is malformed or out of step with the registered checks; the message names the file
    and the key, and what to add or remove."""


@dataclass(frozen=True, slots=True)
class SuiteCheck:
    """A check id of the official conformance suite, and where it was read (a release, or an unreleased PR)."""

    id: str
    release: str


@dataclass(frozen=True, slots=True)
class AisvsRequirement:
    """An OWASP AISVS requirement, its id (`C9.2.1`) and its text as the standard words it."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class Requirement:
    """One check's entry: the sentence it tests (quoted, with its anchor) or why none is quoted."""

    check_id: str
    quote: str | None  # verbatim; `[...]` marks an elision
    anchor: str | None  # https://modelcontextprotocol.io/specification/<era>/<page>#<section>
    unquoted: str | None  # instead of quote and anchor: why no spec sentence is quoted
    suite: tuple[SuiteCheck, ...]
    aisvs: tuple[AisvsRequirement, ...]
    note: str


@dataclass(frozen=True, slots=True)
class NotChecked:
    """A requirement deliberately not checked, and why."""

    quote: str
    anchor: str
    reason: str


@dataclass(frozen=True, slots=True)
class Requirements:
    """The whole registry as read from one file (`source` names it in every error)."""

    source: str
    entries: dict[str, Requirement]  # by check id, in file order
    not_checked: tuple[NotChecked, ...]
    aisvs_version: str
    aisvs_source: str
    suite_releases: dict[str, tuple[str, ...]]  # release -> the suite check ids read there
