"""url_required, read from a recording: the -32042 (URLElicitationRequiredError, 2025-11-25 only) its first call
got, the URLs that error named, and what the client did next (showed them, opened them, retried)."""

from __future__ import annotations

from typing import Any

from backchannel.oracle.model import Finding
from backchannel.recordings.model import Message, Recording, Run

from .eras import MODERN, run_era
from .facts import contract_run, not_exercised, rounds

TOOL = "url_required"
REQUIRED_PATH = "/link/required"  # where the endpoint points the -32042's elicitation (the declined server)
URL_ELICITATION_REQUIRED = -32042


def _error(message: Message) -> dict[str, Any] | None:
    error = message.payload.get("error") if isinstance(message.payload, dict) else None
    return error if isinstance(error, dict) else None


def required_error(rec: Recording, run: Run) -> Message | None:
    """The first -32042 answer to a url_required call in the run."""
    for call in rounds(rec, run, TOOL):
        if call.response is not None and call.error_code == URL_ELICITATION_REQUIRED:
            return call.response
    return None


def required_urls(error: Message) -> list[str]:
    """The url of every elicitation a -32042 error's data names."""
    data = (_error(error) or {}).get("data")
    found = data.get("elicitations") if isinstance(data, dict) else None
    return [e["url"] for e in found or () if isinstance(e, dict) and isinstance(e.get("url"), str)]


def exercised_required(rec: Recording) -> tuple[Run, Message] | Finding:
    """The run and its -32042, or the SKIP/ERROR that says why there is none to judge (the era first)."""
    run = contract_run(rec)
    if run is None:
        return Finding.errored("incomplete-recording", "the recording has no contract run")
    stop = not_exercised(rec, TOOL)
    if stop is not None:
        return stop
    era = run_era(rec, run)
    if era == MODERN:
        return Finding.skipped(
            "removed-in-2026",
            "the run spoke 2026-07-28, which removed -32042 (a URL request is an input request there): "
            f"{TOOL} asked nothing",
            run=run.id,
        )
    error = required_error(rec, run)
    if error is None:
        return Finding.errored("no-required-error", f"{TOOL} was called but no -32042 answer is recorded", run=run.id)
    return run, error
