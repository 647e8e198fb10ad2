"""A deliberately broken server for `elicitation-sep1036-url-mode`: the scenario's conformant tools with one switch
per requirement, each breaking exactly one of the seven checks (and `no-tool`, the untestable path).

In process: `serve(switch)` returns a RunningEndpoint (our scripted endpoint, the broken tools in place of the
scenario's). As a command: `python tests/servers/url_elicitation_broken.py --break SWITCH [--port N]` prints
`READY <url>` and serves until SIGTERM, SIGINT or the end of its stdin (scripts/make-reference-recordings uses it).
"""

from __future__ import annotations

import argparse
import copy
import signal
import sys
import threading
from typing import Any

from backchannel.proxy.endpoint.server import RunningEndpoint, start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSpec
from backchannel.proxy.scenarios.elicitation_sep1036_url_mode.endpoint import (
    FORM_TOOL,
    TOOLS,
    URL_TOOL,
    form_elicitation,
    url_elicitation,
)

NAME = "url-elicitation-broken"
# each switch and the one check it breaks (the others pass); no-tool makes every check untestable
SWITCHES: dict[str, str | None] = {
    "url-request-params": "sep-1036-url-request-params",  # a URL request with a url but no mode
    "url-valid": "sep-1036-url-valid",  # a relative url
    "decline-cancel": "sep-2322-server-handles-decline-cancel",  # -32603 for a decline or a cancel
    "unsupported-mode": "sep-1036-server-no-unsupported-mode",  # a form request to a URL-only client
    "rejects-undeclared": "sep-2575-server-rejects-undeclared-capability",  # `elicitation: {}`: isError, not -32021
    "http-200": "sep-2575-missing-capability-http-400",  # -32021 under HTTP 200
    "bare-elicitation": "sep-2575-missing-capability-http-400",  # requiredCapabilities {"elicitation": {}}
    "url-elicitation-required-error": "sep-1036-server-no-url-elicitation-required-error",  # -32042 after accept
    "no-tool": None,  # no test_url_elicitation at all
}


def _action(call: ToolCall) -> object:
    answers = call.input_responses or {}
    first = next(iter(answers.values()), None)
    return first.get("action") if isinstance(first, dict) else None


def _broken_url_tool(switch: str) -> Any:
    def handler(call: ToolCall) -> ToolReply:
        if switch == "rejects-undeclared" and call.client_capabilities.get("elicitation") == {}:
            return ToolReply(result={"content": [{"type": "text", "text": "URL mode is needed"}], "isError": True})
        if switch == "decline-cancel" and _action(call) in ("decline", "cancel"):
            error = {"code": -32603, "message": "Internal error: unexpected action"}
            return ToolReply(error=error, http_status=500)
        if switch == "url-elicitation-required-error" and _action(call) == "accept":
            error = {"code": -32042, "message": "URL elicitation required", "data": {"elicitations": []}}
            return ToolReply(error=error, http_status=200)
        reply = url_elicitation(call)
        result, error = copy.deepcopy(reply.result), copy.deepcopy(reply.error)
        for request in (result or {}).get("inputRequests", {}).values():
            if switch == "url-request-params":
                del request["params"]["mode"]
            elif switch == "url-valid":
                request["params"]["url"] = "/connect?session=relative"
        if error is not None and switch == "http-200":
            return ToolReply(error=error, http_status=200)
        if error is not None and switch == "bare-elicitation":
            error["data"]["requiredCapabilities"] = {"elicitation": {}}
        return ToolReply(result=result, error=error, http_status=reply.http_status)

    return handler


def _ungated_form_tool(call: ToolCall) -> ToolReply:
    """The form tool asking in form mode whatever the client declared."""
    both = {**call.client_capabilities, "elicitation": {"form": {}}}
    return form_elicitation(ToolCall(**{**call.__dict__, "client_capabilities": both}))


def tools(switch: str) -> tuple[ToolSpec, ...]:
    if switch not in SWITCHES:
        raise ValueError(f"unknown switch {switch!r}; known: {', '.join(SWITCHES)}")
    out = []
    for spec in TOOLS:
        if spec.name == URL_TOOL:
            if switch == "no-tool":
                continue
            spec = ToolSpec(spec.name, spec.description, spec.input_schema, _broken_url_tool(switch))
        elif spec.name == FORM_TOOL and switch == "unsupported-mode":
            spec = ToolSpec(spec.name, spec.description, spec.input_schema, _ungated_form_tool)
        out.append(spec)
    return tuple(out)


def serve(switch: str, port: int = 0) -> RunningEndpoint:
    """The broken server on 127.0.0.1 (port 0: a free one)."""
    config = EndpointConfig(tools=tools(switch), server_name=f"{NAME}-{switch}")
    return start_endpoint(config, port=port)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--break", dest="switch", required=True, choices=sorted(SWITCHES))
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    threading.Thread(target=lambda: (sys.stdin.buffer.read(), done.set()), daemon=True).start()
    with serve(args.switch, args.port) as running:
        print(f"READY {running.url}", flush=True)
        done.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
