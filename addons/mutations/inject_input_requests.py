"""inject-input-requests: turn the upstream's result into `input_required` with injected inputRequests.

The result keeps its `_meta` and gains a minted, HMAC-protected `requestState`. Which input requests go out follows
the capabilities the client declared on this very request when the plan gives `byCapability` options (a server must
not send an input request the client has not declared), unless `ignoreCapabilities` says to send the first anyway;
`modernOnly` sends nothing to a legacy-era request. The retry carrying the state is answered by the Rewriter.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from backchannel.recordings.mutation_records import MutationRecord, Role

from .base import MutationKind, PlanError, RequestStep, ResultStep, require

CAPABILITIES = ("elicitation", "sampling", "roots")


@dataclass(frozen=True, slots=True)
class CapabilityOption:
    """Input requests to send when the client declared this capability (and, for elicitation, this mode)."""

    capability: str
    mode: str | None
    input_requests: dict[str, Any]


def _input_requests(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or not value:
        raise PlanError("inputRequests must be a non-empty object")
    for key, request in value.items():
        require(
            isinstance(request, dict) and isinstance(request.get("method"), str),
            f"inputRequests.{key} must be an object with a string method",
        )
    return value


def declared(capabilities: Any, capability: str, mode: str | None) -> bool:
    """Whether the client declared this input capability (an empty elicitation object means form only)."""
    if not isinstance(capabilities, dict) or not isinstance(capabilities.get(capability), dict):
        return False
    if capability != "elicitation" or mode is None:
        return True
    modes = capabilities["elicitation"]
    return mode in modes or (mode == "form" and not modes)


@dataclass(frozen=True, slots=True, kw_only=True)
class InjectDecisionRecord(MutationRecord):
    """Whether, and which, input request inject-input-requests chose for this request, and why."""

    KIND: ClassVar[str] = "inject-decision"
    ROLE: ClassVar[Role] = "decision"
    index: int
    protocol_version: Any  # the request's _meta protocolVersion as the client sent it (any JSON value)
    chosen: str | None  # "fixed", a capability name, or None: nothing injected
    out_of_spec: bool = False  # sent although the client did not declare the capability
    reason: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class InjectInputRequestsRecord(MutationRecord):
    """The result became input_required with injected inputRequests and this minted requestState."""

    KIND: ClassVar[str] = "inject-input-requests"
    ROLE: ClassVar[Role] = "result"
    index: int
    request_state: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerInputRequiredRecord(MutationRecord):
    """A retry carrying our requestState: its inputResponses were recorded and the original call forwarded.

    Made by the Rewriter, which answers the retries of the state this kind mints (addons/request_state.py).
    """

    KIND: ClassVar[str] = "answer-input-required"
    ROLE: ClassVar[Role] = "request"
    input_responses: Any  # as the client sent them (any JSON value)
    request_state: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RejectRequestStateRecord(MutationRecord):
    """A retry whose requestState was tampered with, minted for another run, or already used: -32602.

    Made by the Rewriter, like AnswerInputRequiredRecord.
    """

    KIND: ClassVar[str] = "reject-request-state"
    ROLE: ClassVar[Role] = "answer"
    reason: str


@dataclass(frozen=True, slots=True)
class InjectInputRequests(MutationKind):
    NAME: ClassVar[str] = "inject-input-requests"
    RECORDS: ClassVar[tuple[type[MutationRecord], ...]] = (
        InjectDecisionRecord,
        InjectInputRequestsRecord,
        AnswerInputRequiredRecord,
        RejectRequestStateRecord,
    )
    input_requests: dict[str, Any] | None = None  # fixed: sent whatever the client declared
    by_capability: tuple[CapabilityOption, ...] | None = None  # chosen by what the client declared
    modern_only: bool = False
    ignore_capabilities: bool = False

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        modern_only, ignore = bool(raw.get("modernOnly")), bool(raw.get("ignoreCapabilities"))
        if "byCapability" not in raw:
            requests = _input_requests(raw.get("inputRequests"))
            return cls(input_requests=requests, modern_only=modern_only, ignore_capabilities=ignore)
        options = raw["byCapability"]
        require(isinstance(options, list) and bool(options), "byCapability must be a non-empty list")
        parsed = []
        for n, option in enumerate(options):
            require(
                isinstance(option, dict) and option.get("capability") in CAPABILITIES,
                f"byCapability[{n}].capability must be elicitation, sampling or roots",
            )
            mode = option.get("mode")
            require(mode is None or isinstance(mode, str), f"byCapability[{n}].mode must be a string")
            try:
                requests = _input_requests(option.get("inputRequests"))
            except PlanError as exc:
                raise PlanError(f"byCapability[{n}]: {exc}") from None
            parsed.append(CapabilityOption(option["capability"], mode, requests))
        return cls(by_capability=tuple(parsed), modern_only=modern_only, ignore_capabilities=ignore)

    def describe(self) -> str:
        if self.by_capability is None:
            keys = ", ".join(self.input_requests or {})
            what = f"input requests {keys}"
        else:
            what = (
                "input requests by declared capability ("
                + ", ".join(o.capability + (f"/{o.mode}" if o.mode else "") for o in self.by_capability)
                + ")"
            )
        flags = [
            f
            for f, on in (("modern only", self.modern_only), ("ignoring capabilities", self.ignore_capabilities))
            if on
        ]
        suffix = f" [{', '.join(flags)}]" if flags else ""
        return f"answer input_required with {what} and a minted requestState{suffix}"

    def choose(self, index: int, request: dict[str, Any]) -> tuple[dict[str, Any] | None, InjectDecisionRecord]:
        """The inputRequests to inject into the answer to this request, and the record of why (or why none)."""
        raw_params = request.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        raw_meta = params.get("_meta")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        version = meta.get("io.modelcontextprotocol/protocolVersion")
        capabilities = meta.get("io.modelcontextprotocol/clientCapabilities")

        def record(chosen: str | None, reason: str | None = None, out_of_spec: bool = False) -> InjectDecisionRecord:
            return InjectDecisionRecord(
                index=index, protocol_version=version, chosen=chosen, out_of_spec=out_of_spec, reason=reason
            )

        if self.modern_only and not isinstance(version, str):
            return None, record(None, "legacy-era")
        if self.by_capability is None:
            return self.input_requests, record("fixed")
        for option in self.by_capability:
            if declared(capabilities, option.capability, option.mode):
                return option.input_requests, record(option.capability)
        if self.ignore_capabilities:
            first = self.by_capability[0]
            return first.input_requests, record(first.capability, "sent although the client did not declare it", True)
        return None, record(None, "client-declares-no-input-capability")

    def on_request(self, index: int, step: RequestStep) -> bool:
        requests, decision = self.choose(index, step.request)
        step.records.append(decision)
        if requests is None:
            return False
        step.injections[index] = requests
        return True

    def on_result(self, index: int, text: str, step: ResultStep) -> str | None:
        if not isinstance(step.payload.get("result"), dict):
            return None
        result = json.loads(text)["result"]  # the text as earlier mutations left it
        injected: dict[str, Any] = {
            "resultType": "input_required",
            "inputRequests": step.injections.get(index) or self.input_requests,
            "requestState": step.mint(index),
        }
        if isinstance(result.get("_meta"), dict):
            injected["_meta"] = result["_meta"]
        step.records.append(InjectInputRequestsRecord(index=index, request_state=injected["requestState"]))
        message = {"jsonrpc": "2.0", "id": step.payload.get("id"), "result": injected}
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


KIND = InjectInputRequests
