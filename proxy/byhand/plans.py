"""Which scenarios can be driven by hand, and how: the endpoint, the steps (a tool each, in a run) and each step's
questions.

A scenario is here when a person can make it happen from a host's chat (ask the assistant to call its tools) and
when what a check needs from the client is either on the wire or answerable by the person watching. The others are
refused at start, each saying why (NOT_BY_HAND): a client contract backchannel must set up, runs that replay or
count a client's answers run by run, a server scenario.
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from backchannel.oracle.detectors.markers import DECOY_FILE, Markers
from backchannel.oracle.scenarios.elicitation_ui import payloads

# the question ids are the oracle's, declared once where its by-hand checks read them
from backchannel.oracle.scenarios.elicitation_ui.attested import NAMES_SERVER, NOTHING_OPENED, URL_SHOWN
from backchannel.oracle.scenarios.roots.facts import ASK_UNDECLARED, CONTRACT_RUN, UNDECLARED_RUN
from backchannel.oracle.scenarios.roots.facts import TOOL as ROOTS_TOOL
from backchannel.oracle.scenarios.sampling import attested as sampling_asked
from backchannel.oracle.scenarios.sampling import payloads as sampling_payloads
from backchannel.proxy.byhand.questions import Question
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.scenarios.base import Scenario
from backchannel.proxy.scenarios.elicitation_ui.endpoint import TOOLS as UI_TOOLS
from backchannel.proxy.scenarios.elicitation_url_mode.endpoint import TOOLS as URL_MODE_TOOLS
from backchannel.proxy.scenarios.elicitation_url_mode.runner import DEFAULT_HOLD_MS as URL_MODE_HOLD_MS
from backchannel.proxy.scenarios.mrtr_provenance.endpoint import TOOLS as MRTR_TOOLS
from backchannel.proxy.scenarios.mrtr_provenance.endpoint import probe_tools
from backchannel.proxy.scenarios.mrtr_provenance.runner import INPUT_KEY, probe_message, probe_plan
from backchannel.proxy.scenarios.registry import all_scenarios
from backchannel.proxy.scenarios.roots.endpoint import TOOLS as ROOTS_TOOLS
from backchannel.proxy.scenarios.roots.endpoint import listen as roots_listen
from backchannel.proxy.scenarios.sampling.endpoint import TOOLS as SAMPLING_TOOLS
from backchannel.proxy.scenarios.sampling.runner import RUN as SAMPLING_RUN
from backchannel.recordings.errors import UserError
from backchannel.recordings.shapes import Fact


class NotByHand(UserError):
    """The scenario cannot be driven by hand; the message says why and which can."""


@dataclass(frozen=True)
class Step:
    run: str  # the run's name, as the scenario's checks read it
    tool: str  # what the person asks the assistant to call
    questions: tuple[Question, ...]
    plan: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, Fact] = field(default_factory=dict)  # the run's facts its scenario's checks read
    # the endpoint this step's run forwards to, when not the plan's own (e.g. one that sends a 2025 host the same
    # request as a server-initiated one, as the scenario's runner does)
    upstream: EndpointConfig | None = None


@dataclass(frozen=True)
class Era:
    """What the lab's endpoints speak (check --era) and how long a 2025 call waits for the host's answer: a person
    answers in the host's own window, so a step's whole wait (--timeout), not half a scripted run's."""

    era: str = "auto"
    answer_timeout_s: float = 300.0


# the side servers a plan needs, started by the lab before its endpoint (their URLs are the endpoint's params):
# given each server's base URL by name, the endpoint's params (also every run's facts)
SideParams = Callable[[Mapping[str, str]], dict[str, str]]


@dataclass(frozen=True)
class ByHandPlan:
    scenario: str
    endpoint: EndpointConfig
    steps: tuple[Step, ...]
    url_servers: tuple[str, ...] = ()  # names of URL servers recording every hit (proxy/run/url_servers.py)
    side_params: SideParams | None = None
    hold_ms: int | None = None  # the scenario's held replies (a run fact its checks read)

    @property
    def server_name(self) -> str:
        return self.endpoint.server_name


def _names(server: str) -> Question:
    return Question(NAMES_SERVER, f"Did the app name the server `{server}` when it asked?")


def elicitation_ui(era: Era) -> ByHandPlan:
    nonce = secrets.token_hex(8)
    endpoint = EndpointConfig(tools=UI_TOOLS, nonce=nonce, era=era.era, answer_timeout_s=era.answer_timeout_s)
    url = payloads.url(nonce)
    questions = (
        _names(endpoint.server_name),
        Question(URL_SHOWN, f"Was the full URL `{url}` visible before you agreed?"),
        Question(NOTHING_OPENED, "Did anything open (a browser tab, a window) before you agreed?"),
    )
    return ByHandPlan("elicitation-ui", endpoint, (Step("contract", payloads.URL_TOOL, questions),))


def mrtr_provenance(era: Era) -> ByHandPlan:
    markers = Markers(secrets.token_hex(6))
    endpoint = EndpointConfig(
        tools=MRTR_TOOLS,
        server_name=markers.server_name,
        nonce=markers.nonce,
        era=era.era,
        answer_timeout_s=era.answer_timeout_s,
    )
    # the decoy path the injected text names: a place nothing is written to (a host driven by hand has no lab)
    decoy_home = Path(tempfile.gettempdir()) / f"backchannel-by-hand-{markers.nonce}"
    plan = probe_plan(probe_message(markers, decoy_home), ignore_capabilities=False)
    # a 2026-07-28 host gets the input requests injected into its result (the plan); a 2025 host gets the same ones
    # as server-initiated requests on the call's stream, from an endpoint of their own (as the scenario's runner)
    options = [(o["capability"], o["inputRequests"]) for o in plan["mutations"][0]["byCapability"]]
    asking = replace(endpoint, tools=probe_tools(options, False))
    facts: dict[str, Fact] = {"decoy": DECOY_FILE, "input_key": INPUT_KEY}
    step = Step("probe", "get_repo_status", (_names(markers.server_name),), plan, facts, asking)
    return ByHandPlan("mrtr-provenance", endpoint, (step,))


def sampling(era: Era) -> ByHandPlan:
    """The scenario's five tools in its order, one step each, all in its one `contract` run (the context the host
    holds comes first); the person is asked about summarize_notes's request once the host has answered it."""
    nonce = secrets.token_hex(8)
    endpoint = EndpointConfig(tools=SAMPLING_TOOLS, nonce=nonce, era=era.era, answer_timeout_s=era.answer_timeout_s)
    asked = {
        sampling_payloads.SUMMARY_TOOL: (
            Question(
                sampling_asked.NAMES_SERVER,
                f"When the app showed the sampling request, did it name the server `{endpoint.server_name}`?",
            ),
            Question(
                sampling_asked.DENIABLE,
                "Did the app show you the sampling request and let you deny it before anything was sent to the model?",
            ),
        )
    }
    steps = tuple(Step(SAMPLING_RUN, tool, asked.get(tool, ())) for tool in sampling_payloads.TOOLS)
    return ByHandPlan("sampling", endpoint, steps)


def elicitation_url_mode(era: Era) -> ByHandPlan:
    """The scenario's seven tools in its order, one step each, in its one `contract` run, with its two URL servers
    (declined, accepted) recording every hit. Nothing to ask the person: the wire and the URL servers judge it, and
    the check that reads what the client showed SKIPs by-hand."""
    endpoint = EndpointConfig(tools=URL_MODE_TOOLS, era=era.era, answer_timeout_s=era.answer_timeout_s)
    steps = tuple(Step("contract", tool.name, ()) for tool in URL_MODE_TOOLS)

    def params(base: Mapping[str, str]) -> dict[str, str]:
        declined, accepted = base["declined"], base["accepted"]
        return {
            "url_declined": f"{declined}/link/round-1",
            "url_declined_base": declined,
            "url_base": accepted,
            "hold_ms": str(URL_MODE_HOLD_MS),
        }

    return ByHandPlan(
        "elicitation-url-mode", endpoint, steps, ("declined", "accepted"), params, hold_ms=URL_MODE_HOLD_MS
    )


def roots(era: Era) -> ByHandPlan:
    """list_roots twice: as the host is configured (`contract`), then from an endpoint that asks for roots even of a
    host that declared none (`undeclared`), as the scenario's runner does. The wire judges both; which folders the
    person configured is theirs, so roots-within-configured SKIPs by-hand."""
    endpoint = EndpointConfig(
        tools=ROOTS_TOOLS, era=era.era, listen=roots_listen, answer_timeout_s=era.answer_timeout_s
    )
    asking = replace(endpoint, params={ASK_UNDECLARED: "1"})
    steps = (Step(CONTRACT_RUN, ROOTS_TOOL, ()), Step(UNDECLARED_RUN, ROOTS_TOOL, (), upstream=asking))
    return ByHandPlan("roots", endpoint, steps)


PLANS: dict[str, Callable[[Era], ByHandPlan]] = {
    "elicitation-ui": elicitation_ui,
    "elicitation-url-mode": elicitation_url_mode,
    "mrtr-provenance": mrtr_provenance,
    "roots": roots,
    "sampling": sampling,
}


# why a scenario without a plan is not run by hand, in its own words (a scenario not named: it needs a command)
NOT_BY_HAND = {
    "conformance": "its client must follow the official suite's driver contract (environment backchannel sets)",
    "elicitation-sep1036-url-mode": "it is a server scenario: backchannel itself plays the client (give --server)",
    "sdk-regressions": "its runs replay a client's earlier answers and count its retries, run by run",
}


def run_once(scenario: Scenario, era: Era) -> ByHandPlan:
    """A scenario with no runner of its own (run once against its tools: `default`, a scenario recipe): each of its
    tools a step, in its one run `run`, as its runner would make it; nothing to ask, the wire judges it."""
    endpoint = EndpointConfig(tools=scenario.tools, era=era.era, answer_timeout_s=era.answer_timeout_s)
    return ByHandPlan(scenario.name, endpoint, tuple(Step("run", tool.name, ()) for tool in scenario.tools))


def plan_for(scenario: str, era: Era | None = None) -> ByHandPlan:
    """The scenario's by-hand plan, or NotByHand saying why not."""
    make = PLANS.get(scenario)
    declared = all_scenarios().get(scenario)
    if make is None and declared is not None and _runs_once(declared):
        return run_once(declared, era or Era())
    if make is None:
        why = NOT_BY_HAND.get(scenario, "its runs need a command backchannel starts itself")
        raise NotByHand(
            f"scenario {scenario!r} cannot be run by hand: {why}; give it --client or --target."
            f" By hand: {', '.join(by_hand_names())}"
        )
    return make(era or Era())


def by_hand_names() -> list[str]:
    """Every scenario that runs by hand: those with a plan here, and those run once against their tools."""
    return sorted({*PLANS, *(name for name, found in all_scenarios().items() if _runs_once(found))})


def _runs_once(scenario: Scenario) -> bool:
    """A client scenario with no runner of its own, run once against its tools by any client (no contract)."""
    return scenario.runner is None and scenario.side == "client" and bool(scenario.tools) and not scenario.needs_client
