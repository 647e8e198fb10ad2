"""A call answered -32042 is retried once the out-of-band step is done (2025-11-25; the contract asks it)."""

from __future__ import annotations

from collections.abc import Iterator

from backchannel.oracle.model import Evidence, Finding
from backchannel.oracle.registry import check
from backchannel.recordings.model import Recording

from ..facts import SCENARIO, rounds
from ..url_required import TOOL, URL_ELICITATION_REQUIRED, exercised_required

SPEC_2025 = "https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation"


@check(
    "sep-1036-client-url-required-retried",
    scenario=SCENARIO,
    level="SHOULD",
    spec=f"{SPEC_2025}#url-mode-with-elicitation-required-error-flow",
    eras=("2026-07-28", "2025-11-25", "2025-06-18"),
    title="A call answered -32042 is retried and gets its result (contract; the spec makes the retry optional)",
)
def judge(rec: Recording) -> Iterator[Finding]:
    """The 2025-11-25 flow: "Client notes the original request can be retried after elicitation", then "Retry
    tools/call (optional)". The contract asks for one retry (the server finishes the step out of band at once and
    answers the retry); a flow check like the held retries, with no MUST behind it: a client that never retries,
    or whose retry gets no result, is WARN, never FAIL. Era: 2025-11-25 only (SKIP removed-in-2026, no-url-mode)."""
    found = exercised_required(rec)
    if isinstance(found, Finding):
        yield found
        return
    run, error = found
    cited = Evidence(kind="message", run=run.id, seq=error.seq, note="-32042")
    later = [c for c in rounds(rec, run, TOOL) if c.request.seq > error.seq]
    if not later:
        yield Finding.warned(
            f"the client never retried {TOOL} after its -32042 (the contract asks for one retry)", cited, run=run.id
        )
        return
    done = next((c for c in later if c.response is not None and "content" in c.result), None)
    if done is None:
        again = sum(1 for c in later if c.error_code == URL_ELICITATION_REQUIRED)
        why = f"{again} got -32042 again (another session?)" if again else "none got the tool's result"
        yield Finding.warned(f"the client retried {len(later)} time(s); {why}", cited,
                             *(c.evidence("retry") for c in later), run=run.id)  # fmt: skip
        return
    yield Finding.passed(
        f"retried after the -32042 and got the tool's result ({len(later)} retry(ies))",
        cited,
        done.evidence("retry"),
        run=run.id,
    )
