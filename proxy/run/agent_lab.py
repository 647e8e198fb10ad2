"""A coding agent as a run's client: its model stand-in, its recipe's files and environment, and the refusing proxy.

`check --agent NAME` hands scenarios a client command line like any other, `agent_client(...)`: the `{agent}` token,
the recipe (a shipped one's name, or a user's file), the permission arm and `{url}`. Runners pass it to
`Capture.run_client` unchanged (one may pick another arm per run with `with_arm`; a scenario's model script,
`Scenario.model_script`, is set around its runner by `scripted`). There the capture asks this module to prepare the
run: it starts the model stand-in the recipe's agent talks to (recording every exchange through the capture's
writer), writes the recipe's files into the lab HOME, and gives the agent its command line and environment,
including a proxy that refuses every outside host and records which one was wanted.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backchannel.oracle.harness import AGENT_OUTSIDE_HOST  # the anomaly kind its check reads
from backchannel.proxy.agents.expand import RunValues, expand_recipe, write_files
from backchannel.proxy.agents.installed import require_installed
from backchannel.proxy.agents.recipe import ARMS, AgentRecipe, RecipeError, load_recipe, shipped_recipes
from backchannel.proxy.endpoint.tools import ToolSpec
from backchannel.proxy.run.refusing_proxy import Refused, RefusingProxy, proxy_env
from backchannel.proxy.run.ui_steps import Gate, UiStep
from backchannel.recordings.errors import UserError
from backchannel.recordings.rows import ModelExchangeRow
from backchannel.recordings.shapes import Fact

if TYPE_CHECKING:  # the stand-in (uvicorn, the provider APIs) is imported only when an agent runs
    from backchannel.proxy.model.script import ModelScript
    from backchannel.proxy.model.server import ModelStandIn

AGENT_TOKEN = "{agent}"  # the first element of an agent client command line
DEFAULT_ARM = "call-tool"  # what a scenario's runs use unless the scenario says otherwise
DEFAULT_ANSWER = "done"  # the scripted model's final text after the tool result
OUTSIDE_HOST = AGENT_OUTSIDE_HOST  # the anomaly kind: the agent tried to reach a host outside the lab
MAX_OUTSIDE_NOTES = 100  # distinct (run, host) anomalies kept per capture; past it the rest are dropped
# a scenario's own model script (plain data, `Scenario.model_script`), for the runs under `scripted(...)`
_SCENARIO_SCRIPT: ContextVar[Mapping[str, Any] | None] = ContextVar("backchannel_model_script", default=None)


class AgentLabError(UserError):
    """An agent run that cannot be prepared; the message says why and what to do."""


def agent_client(recipe: AgentRecipe, arm: str = DEFAULT_ARM) -> tuple[str, ...]:
    """The client command line that makes a run's client this recipe's agent, with this permission arm."""
    if arm not in ARMS:
        raise RecipeError(f"no permission arm {arm!r} (arms: {', '.join(ARMS)})")
    return (AGENT_TOKEN, recipe_ref(recipe), arm, "{url}")


def recipe_ref(recipe: AgentRecipe) -> str:
    """How a run names its recipe: a shipped one by name (the recording reads the same on any machine), a user's
    own by its absolute path (never a bare name a shipped recipe could shadow)."""
    return recipe.name if shipped_recipes().get(recipe.name) == recipe.source else str(recipe.source.resolve())


def is_agent_client(argv: Sequence[str]) -> bool:
    return len(argv) == 4 and argv[0] == AGENT_TOKEN and argv[3] == "{url}"


def with_arm(argv: Sequence[str], arm: str) -> tuple[str, ...]:
    """The same agent client command line with another permission arm (a runner's per-run choice)."""
    if not is_agent_client(argv):
        raise AgentLabError("with_arm takes an agent client command line (agent_client)")
    return (argv[0], argv[1], arm, argv[3])


def chosen_agent(name: str | None, recipe_file: Path | None, arm: str = DEFAULT_ARM) -> tuple[str, ...] | None:
    """The client command line `--agent NAME` or `--agent-recipe FILE` asks for (None: neither was given).

    Raises:
        AgentLabError: both were given, or the name is not a shipped recipe. RecipeError: the recipe is broken.
        AgentNotInstalled: its agent is not installed (the message names the install command).
    """
    if name is not None and recipe_file is not None:
        raise AgentLabError("give --agent NAME or --agent-recipe FILE, not both")
    if name is None and recipe_file is None:
        return None
    if name is not None and name not in shipped_recipes():
        raise AgentLabError(
            f"no agent named {name!r}; shipped: {', '.join(shipped_recipes())} (or --agent-recipe FILE)"
        )
    recipe = load_recipe(name if name is not None else Path(str(recipe_file)))
    require_installed(recipe)
    return agent_client(recipe, arm)


def agent_server_name(name: str) -> str:
    """The name the agent's configuration gives the run's server: letters, digits and _ only, since each agent
    builds its tool names from it and each rewrites other characters its own way (Codex turns - into _)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name)[:40] or "backchannel"


@contextlib.contextmanager
def scripted(data: Mapping[str, Any] | None) -> Iterator[None]:
    """Agent runs in this block use the scenario's model script (plain data; `server` is filled in per run), laid
    over the script of an enclosing block (a runner's per-run choice of tool keeps its scenario's other keys)."""
    outer = _SCENARIO_SCRIPT.get()
    token = _SCENARIO_SCRIPT.set({**(outer or {}), **data} if data is not None else outer)
    try:
        yield
    finally:
        _SCENARIO_SCRIPT.reset(token)


def model_script(tools: Sequence[ToolSpec], server_name: str) -> ModelScript:
    """The scripted model for a run: the scenario's own script, or call its first tool with {} and answer "done"."""
    from backchannel.proxy.model.script import ModelScript, ScriptError

    data: dict[str, Any] = {"arguments": {}, "answer": DEFAULT_ANSWER}
    if tools:
        data["tool"] = tools[0].name
    data.update(_SCENARIO_SCRIPT.get() or {})
    data["server"] = server_name
    if "tool" not in data:
        raise AgentLabError("an agent run needs a tool for its model to call: this endpoint serves none")
    try:
        return ModelScript.from_data(data)
    except ScriptError as exc:
        raise AgentLabError(f"the scenario's model script: {exc}") from None


@dataclass
class AgentRun:
    """One prepared agent run: its command line, environment and facts; `stop()` ends its model stand-in.

    Under `--tty` with a recipe's [tty] table, `steps` are the keys the lab types into the agent's terminal UI (its
    task once `listed` opens, i.e. the run's server listed its tools; its exit keys once the scripted model gave its
    last answer); the capture opens `listed` from its endpoints."""

    argv: tuple[str, ...]
    env: dict[str, str]
    facts: dict[str, Fact]
    stand_in: ModelStandIn
    lab_proxy: AgentLab
    run_id: str
    steps: tuple[UiStep, ...] = ()
    listed: Gate | None = None
    gates: tuple[Gate, ...] = ()
    react: float = 0.0  # its recipe's [tty] react: how long an --answer waits after its prompt appears

    def stop(self) -> None:
        """Stop the run's model stand-in (bounded); one that would not stop is an anomaly, not a crash."""
        self.lab_proxy.leave(self.run_id)
        try:
            self.stand_in.stop()
        except TimeoutError as exc:
            self.lab_proxy.note_anomaly("model-stand-in-stuck", f"the model stand-in did not stop: {exc}", self.run_id)
        finally:
            for gate in self.gates:
                gate.close()


class AgentLab:
    """One capture's agent machinery: the refusing proxy (started at the first agent run) and the runs it prepares."""

    def __init__(self, note_anomaly: Callable[[str, str, str | None], None]) -> None:
        self.note_anomaly = note_anomaly
        self.proxy: RefusingProxy | None = None
        self._current: str | None = None  # the run whose agent is running: refused hosts are its anomalies
        self._seen: set[tuple[str | None, str]] = set()
        self._lock = threading.Lock()

    def refused(self, what: Refused) -> None:
        with self._lock:
            key = (self._current, what.target)
            if key in self._seen or len(self._seen) >= MAX_OUTSIDE_NOTES:
                return
            self._seen.add(key)
            run_id = self._current
        detail = f"the agent tried to reach {what.target} ({what.method} through the lab's proxy); it was refused"
        self.note_anomaly(OUTSIDE_HOST, detail, run_id)

    def enter(self, run_id: str) -> None:
        """From now on, a refused host is this run's (its agent is about to start)."""
        with self._lock:
            self._current = run_id

    def leave(self, run_id: str) -> None:
        with self._lock:
            if self._current == run_id:
                self._current = None

    def prepare(
        self,
        argv: Sequence[str],
        *,
        run_id: str,
        url: str,
        home: Path,
        cwd: Path,
        interactive: bool,
        tools: Sequence[ToolSpec],
        server_name: str,
        sink: Callable[[ModelExchangeRow], None],
    ) -> AgentRun:
        """Start the run's model stand-in, write the recipe's files into `home`, and say how to start the agent.

        Raises:
            RecipeError: the recipe cannot be loaded or filled in. AgentNotInstalled: its agent is not in the cache.
            AgentLabError: the scenario gives its model nothing to call.
        """
        from backchannel.proxy.model.server import ModelStandIn

        recipe = load_recipe(argv[1])
        arm = argv[2]
        installed = require_installed(recipe)
        server_name = agent_server_name(server_name)
        script = model_script(tools, server_name)
        if self.proxy is None:
            self.proxy = RefusingProxy(self.refused)
            self.proxy.start()
        driven = interactive and recipe.tty is not None  # the lab types the task and ends the UI
        listed, done = (Gate("tools-listed"), Gate("model-done")) if driven else (None, None)
        stand_in = ModelStandIn(script, sink, run_id=run_id, on_final=done.open if done is not None else None)
        model_url = stand_in.start()
        try:
            values = RunValues(url, server_name, model_url, home, cwd, script.tool, str(installed.executable))
            launch = expand_recipe(recipe, arm, values, interactive=interactive)
            write_files(launch, home)
        except BaseException:
            stand_in.stop()
            for gate in (listed, done):
                if gate is not None:
                    gate.close()
            raise
        steps: tuple[UiStep, ...] = ()
        if recipe.tty is not None and listed is not None and done is not None:
            steps = (
                UiStep("task", launch.task_keys, recipe.tty.ready, listed),
                UiStep("exit", recipe.tty.exit, recipe.tty.ready, done, ends=True),
            )
        self.enter(run_id)
        chosen = recipe.arm(arm)
        facts: dict[str, Fact] = {
            "agent": recipe.name,
            "agent_version": installed.version,
            "agent_recipe": recipe_ref(recipe),
            "agent_arm": arm,
            "agent_permissions": "; ".join(launch.permissions) or "(the agent's own defaults)",
            "agent_permissions_why": chosen.why,
            "agent_api": recipe.api,
            "agent_server_name": server_name,
            "model_tool": script.tool,
        }
        if steps:
            facts["agent_ui"] = "driven"  # the lab typed the task into the terminal UI and ended it (typed screens)
        env = {**launch.env, **proxy_env(self.proxy.url)}
        gates = tuple(gate for gate in (listed, done) if gate is not None)
        react = recipe.tty.react if recipe.tty is not None else 0.0
        return AgentRun(launch.argv, env, facts, stand_in, self, run_id, steps, listed, gates, react)

    def close(self) -> None:
        if self.proxy is not None:
            self.proxy.stop()
            self.proxy = None
