"""The README's command table says what the CLI does: every command, every flag, no more and no less."""

from __future__ import annotations

import json
import re
from pathlib import Path

import typer.main

from backchannel.addons.mutations import kinds
from backchannel.addons.plan import parse_plan
from backchannel.oracle import all_checks
from backchannel.proxy.cli import app
from backchannel.proxy.judging.baseline import load_baseline

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^\| `backchannel ([a-z-]+)([^`]*)` \|", re.MULTILINE)


def _table() -> dict[str, set[str]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return {name: set(re.findall(r"--[a-z][a-z-]*", rest)) for name, rest in ROW.findall(readme)}


def _cli(*, negative: bool = False) -> dict[str, set[str]]:
    """Each command's flags; with `negative`, the `--no-...` forms instead (typer gives every bool flag one)."""
    group = typer.main.get_command(app)
    flags: dict[str, set[str]] = {}
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        opts = {o for p in command.params for o in (p.secondary_opts if negative else p.opts) if o.startswith("--")}
        flags[name] = opts - {"--help"}
    return flags


def test_the_readme_command_table_lists_exactly_the_cli_commands():
    assert set(_table()) == set(_cli())


def test_each_readme_command_row_names_exactly_the_flags_the_cli_takes():
    """Every flag, and no other; a `--no-...` form may be named where it means something (`--no-tty`)."""
    table, cli, negative = _table(), _cli(), _cli(negative=True)
    for name in cli:
        named = table[name] - negative[name]
        assert named == cli[name], f"backchannel {name}: README {sorted(named)} vs CLI {sorted(cli[name])}"


def test_the_readme_plan_example_parses_and_names_every_mutation_kind():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("## Mutation plans") :]
    example = block[block.index("```json") + len("```json") : block.index("```", block.index("```json") + 7)]
    plan = parse_plan(json.loads(example))
    assert {m.kind for m in plan.mutations} == set(kinds())
    table = set(re.findall(r"^\| `([a-z-]+)` \| ", block[: block.index("## The recording")], re.MULTILINE))
    assert table == set(kinds())


def test_the_readme_baseline_example_loads_and_names_only_real_scenarios_and_checks(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("```yaml") + len("```yaml") : readme.index("```", readme.index("```yaml") + 7)]
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(block, encoding="utf-8")
    entries = load_baseline(baseline)
    checks = all_checks().values()
    known = {c.scenario for c in checks} | {f"{c.scenario}:{c.id}" for c in checks}
    assert entries and set(entries) <= known
