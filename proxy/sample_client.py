"""A real client for demos: the official Python SDK calls one tool and prints what it got.

Usage: python -m backchannel.proxy.sample_client URL [TOOL] [--mode auto|legacy|2026-07-28] [--accept]
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any


async def _main(url: str, tool: str, mode: str, accept: bool) -> int:
    from mcp import Client
    from mcp_types import ElicitRequestFormParams, ElicitResult

    async def on_elicit(ctx: Any, params: Any) -> ElicitResult:
        print(f"[elicitation from the server at {url}] {params.message}", flush=True)
        if isinstance(params, ElicitRequestFormParams):
            return ElicitResult(action="accept", content={"confirmed": True})
        return ElicitResult(action="accept")

    kwargs: dict[str, Any] = {"mode": mode}
    if accept:
        kwargs["elicitation_callback"] = on_elicit
    async with Client(url, **kwargs) as client:
        tools = await client.list_tools()
        print("tools:", ", ".join(t.name for t in tools.tools), flush=True)
        result = await client.call_tool(tool, {})
        for block in result.content:
            print(getattr(block, "text", block), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    mode = "auto"
    if "--mode" in args:
        i = args.index("--mode")
        mode = args[i + 1]
        del args[i : i + 2]
    accept = "--accept" in args
    args = [a for a in args if a != "--accept"]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    return asyncio.run(_main(args[0], args[1] if len(args) > 1 else "get_repo_status", mode, accept))


if __name__ == "__main__":
    sys.exit(main())
