"""Meta-tests: every check is documented, tested and listed in the README; tests mirror the source tree."""

import re
from pathlib import Path

from backchannel.oracle import all_checks

ROOT = Path(__file__).resolve().parent.parent


def test_every_check_has_a_docstring_a_spec_link_and_its_own_test_file_mirroring_its_scenario_package():
    for check in all_checks().values():
        parts = check.fn.__module__.split(".")
        assert parts[:3] == ["backchannel", "oracle", "scenarios"] and parts[-2] == "checks", check.fn.__module__
        module = parts[-1]
        assert check.doc and check.spec.startswith("https://")
        assert (ROOT / "tests" / Path(*parts[1:-1]) / f"test_{module}.py").is_file(), module
        assert module == check.id.replace("-", "_"), f"{check.id} lives in {module}.py"


def test_the_readme_check_table_lists_exactly_the_registered_checks():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = set(re.findall(r"^\| `([a-z0-9-]+)` \| `[a-z0-9-]+` \|", readme, re.MULTILINE))
    assert table == set(all_checks())


# Modules whose behaviour is proved through a process boundary (mitmdump, a client subprocess) or by the module
# that drives them; each names the test that covers it, and that test must exist.
COVERED_ELSEWHERE = {
    "oracle/model.py": "tests/oracle/test_judge.py",
    "oracle/scenarios/mrtr_provenance/facts.py": (
        "tests/oracle/scenarios/mrtr_provenance/checks/test_mrtr_provenance_input_requests.py"
    ),
    "oracle/scenarios/mrtr_provenance/result_type.py": (
        "tests/oracle/scenarios/mrtr_provenance/checks/test_mrtr_provenance_result_type_default.py"
    ),
    "oracle/scenarios/elicitation_url_mode/facts.py": (
        "tests/oracle/scenarios/elicitation_url_mode/checks/test_sep_2322_client_constructs_inputs.py"
    ),
    "oracle/scenarios/elicitation_url_mode/held_retry.py": (
        "tests/oracle/scenarios/elicitation_url_mode/checks/test_sep_1036_client_held_json_retry_complete.py"
    ),
    "oracle/detectors/carriers.py": (
        "tests/oracle/scenarios/mrtr_provenance/checks/test_elicitation_names_requesting_server.py"
    ),
    "recordings/model.py": "tests/recordings/test_reader.py",
    "recordings/errors.py": "tests/recordings/test_reader.py",
    "recordings/migrations.py": "tests/recordings/test_store.py",
    "proxy/cli.py": "tests/e2e/test_cli_record_and_show.py",
    "proxy/timeline.py": "tests/e2e/test_cli_record_and_show.py",
    "proxy/run/record.py": "tests/e2e/test_cli_record_and_show.py",
    "proxy/run/launcher.py": "tests/e2e/test_bad_input.py",
    "proxy/run/capture.py": "tests/e2e/test_bad_input.py",
    "proxy/run/url_servers.py": "tests/proxy/scenarios/elicitation_url_mode/test_runner.py",
    "proxy/endpoint/tools.py": "tests/proxy/endpoint/test_app.py",
    "proxy/endpoint/wire.py": "tests/proxy/endpoint/test_app.py",
    "proxy/endpoint/io.py": "tests/proxy/endpoint/test_app.py",
    "proxy/endpoint/server.py": "tests/proxy/endpoint/test_app.py",
    "proxy/clients/toy_agent_wire.py": "tests/proxy/clients/test_toy_agent.py",
    "proxy/clients/drivers/paths.py": "tests/proxy/scenarios/mrtr_provenance/test_runner_with_real_clients.py",
    "proxy/scenarios/default/endpoint.py": "tests/proxy/endpoint/test_app_with_sdk_client.py",
    "proxy/scenarios/mrtr_provenance/endpoint.py": (
        "tests/proxy/scenarios/mrtr_provenance/test_runner_with_toy_agent.py"
    ),
    "proxy/scenarios/elicitation_url_mode/endpoint.py": "tests/proxy/scenarios/elicitation_url_mode/test_runner.py",
    "proxy/scenarios/single_run.py": "tests/proxy/scenarios/test_registry.py",
}


def test_every_source_module_with_logic_has_a_test_module_beside_its_mirror():
    missing = []
    for folder in ("addons", "oracle", "recordings", "proxy"):
        for source in (ROOT / folder).rglob("*.py"):
            if source.name == "__init__.py" or "node" in source.parts:
                continue
            rel = source.relative_to(ROOT)
            mirror = ROOT / "tests" / rel.parent / f"test_{source.stem}.py"
            siblings = list((ROOT / "tests" / rel.parent).glob(f"test_{source.stem}*.py"))
            covered = COVERED_ELSEWHERE.get(str(rel))
            if not mirror.exists() and not siblings and not (covered and (ROOT / covered).is_file()):
                missing.append(str(rel))
    assert missing == [], f"modules without tests/…/test_<module>*.py: {missing}"
