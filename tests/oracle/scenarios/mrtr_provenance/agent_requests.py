"""A committed mrtr-provenance recording with model requests added to one of its runs, as if its client had been a
coding agent talking to the lab's model stand-in; judged whole by the oracle."""

from __future__ import annotations

import json
from dataclasses import replace

from backchannel.oracle import judge
from backchannel.oracle.detectors.markers import Markers
from backchannel.oracle.model import Result
from backchannel.recordings import Recording
from backchannel.recordings.model import ModelExchange
from tests.oracle.reference import recording


def markers(name: str) -> Markers:
    return Markers(recording(name).info.nonce or "")


def claude_turns(*turns: object, server: str = "backchannel") -> dict[str, object]:
    """An Anthropic Messages body: the task, the model's call of the server's tool, then `turns`."""
    call = {"type": "tool_use", "id": "t1", "name": f"mcp__{server}__get_repo_status", "input": {}}
    return {
        "messages": [
            {"role": "user", "content": "Check the repository."},
            {"role": "assistant", "content": [call]},
            *turns,
        ]
    }


def tool_result(text: str) -> dict[str, object]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": text}]}


def with_requests(
    name: str,
    run_name: str,
    *bodies: object,
    server: str | None = "backchannel",
    truncated: bool = False,
    api: str = "anthropic-messages",
    steps: tuple[dict[str, object] | None, ...] = (),
) -> Recording:
    """The reference `name` with one model request per body in its last run named `run_name`; `server` is the name
    the run records for the agent's MCP server configuration (None: not recorded); `steps` what the model script
    did with each request."""
    rec = recording(name)
    run = [r for r in rec.runs if r.name == run_name][-1]
    detail = (
        run.detail if server is None else replace(run.detail, facts={**run.detail.facts, "agent_server_name": server})
    )
    runs = tuple(replace(r, detail=detail) if r.id == run.id else r for r in rec.runs)
    added = tuple(
        ModelExchange(
            seq=1000 + index,
            run_id=run.id,
            api=api,
            method="POST",
            path="/v1/messages",
            request_body=json.dumps(body).encode() if not isinstance(body, bytes) else body,
            request_truncated=truncated,
            streamed=True,
            step=steps[index] if index < len(steps) else None,
        )
        for index, body in enumerate(bodies)
    )
    return replace(rec, runs=runs, model_exchanges=rec.model_exchanges + added)


def judged(rec: Recording, check: str) -> Result:
    [result] = [r for r in judge(rec).results if r.id == check]
    return result


__all__ = ["claude_turns", "judged", "markers", "tool_result", "with_requests"]
