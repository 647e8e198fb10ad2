"""Meta-tests: every check is documented, tested and listed in the README; tests mirror the source tree."""

import re
from pathlib import Path

from backchannel.oracle import all_checks
from backchannel.oracle.requirements import load_requirements

ROOT = Path(__file__).resolve().parent.parent


def test_every_check_has_a_docstring_a_spec_link_and_its_own_test_file_mirroring_its_scenario_package():
    for check in all_checks().values():
        parts = check.fn.__module__.split(".")
        assert parts[:3] in (["backchannel", "oracle", "scenarios"], ["backchannel", "oracle", "session"]), parts
        assert parts[-2] == "checks", check.fn.__module__
        module = parts[-1]
        assert check.doc and check.spec.startswith("https://")
        assert (ROOT / "tests" / Path(*parts[1:-1]) / f"test_{module}.py").is_file(), module
        assert module == check.id.replace("-", "_"), f"{check.id} lives in {module}.py"


def test_the_readme_check_table_lists_exactly_the_registered_checks():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = set(re.findall(r"^\| `([a-z0-9-]+)` \| `[a-z0-9-]+` \|", readme, re.MULTILINE))
    assert table == set(all_checks())


def test_each_readme_check_row_gives_the_checks_scenario_level_and_its_registered_requirement():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    entries = load_requirements().entries
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| `([a-z0-9-]+)` \| (\w+) \| ([^|]+) \|", readme, re.MULTILINE)
    assert len(rows) == len(all_checks())
    for check_id, scenario, level, requirement in rows:
        check = all_checks()[check_id]
        assert (scenario, level) == (check.scenario, check.level), check_id
        anchor = entries[check_id].anchor
        assert (f"]({anchor})" in requirement) if anchor else requirement.startswith("lab rule"), check_id


# Modules without a test file of their own, each with the test that covers it and why that is the right place.
# Everything in addons/ is tested in process (tests/addons/test_*_hooks.py); what is left here is either shared
# facts proved through the checks that use them, or code whose job only exists across a process boundary.
FACTS = "shared facts of a scenario's checks: proved through the checks' tests against committed recordings"
PROCESS = "its job is across a process boundary (a subprocess, a socket, the CLI): tested end to end"
COVERED_ELSEWHERE: dict[str, tuple[str, str]] = {
    "oracle/model.py": ("tests/oracle/test_judge.py", "plain records; judge's tests build and compare every field"),
    "oracle/requirements/model.py": (
        "tests/oracle/requirements/test_load.py",
        "plain records and the error class; the loader's tests read every field and every error",
    ),
    "oracle/session/facts.py": ("tests/oracle/session/checks/test_session_client_request_state_echoed.py", FACTS),
    "oracle/session/capabilities.py": (
        "tests/oracle/session/checks/test_sep_2575_client_declares_roots_capability.py",
        FACTS,
    ),
    "oracle/scenarios/mrtr_provenance/facts.py": (
        "tests/oracle/scenarios/mrtr_provenance/checks/test_mrtr_provenance_input_requests.py",
        FACTS,
    ),
    "oracle/scenarios/mrtr_provenance/result_type.py": (
        "tests/oracle/scenarios/mrtr_provenance/checks/test_mrtr_provenance_result_type_default.py",
        FACTS,
    ),
    "oracle/scenarios/elicitation_url_mode/facts.py": (
        "tests/oracle/scenarios/elicitation_url_mode/checks/test_sep_2322_client_constructs_inputs.py",
        FACTS,
    ),
    "oracle/scenarios/elicitation_url_mode/held_retry.py": (
        "tests/oracle/scenarios/elicitation_url_mode/checks/test_sep_1036_client_held_json_retry_complete.py",
        FACTS,
    ),
    "oracle/detectors/carriers.py": (
        "tests/oracle/scenarios/mrtr_provenance/checks/test_elicitation_names_requesting_server.py",
        FACTS,
    ),
    "oracle/scenarios/elicitation_sep1036_url_mode/facts.py": (
        "tests/oracle/scenarios/elicitation_sep1036_url_mode/test_broken_server.py",
        FACTS,
    ),
    "oracle/scenarios/elicitation_ui/facts.py": (
        "tests/oracle/scenarios/elicitation_ui/checks/test_elicitation_url_shown_before_consent.py",
        FACTS,
    ),
    "oracle/scenarios/elicitation_ui/attested.py": (
        "tests/oracle/scenarios/elicitation_ui/checks/test_by_hand_names_requesting_server.py",
        FACTS,
    ),
    "oracle/scenarios/elicitation_ui/payloads.py": (
        "tests/proxy/scenarios/elicitation_ui/test_endpoint.py",
        "the server's texts: the endpoint's tests read them as sent",
    ),
    "proxy/servers/paths.py": ("tests/proxy/servers/test_ts_sdk.py", "finds the installed server those tests start"),
    "recordings/model.py": ("tests/recordings/test_reader.py", "the read side's records: the reader's tests fill them"),
    "recordings/errors.py": ("tests/recordings/test_reader.py", "exception classes, raised and caught there"),
    "recordings/migrations.py": ("tests/recordings/test_store.py", "applied by create and upgrade, tested there"),
    "proxy/run/record.py": ("tests/e2e/test_cli_record_and_show.py", PROCESS),
    "proxy/endpoint/tools.py": ("tests/proxy/endpoint/test_app.py", "the app's vocabulary, exercised by its tests"),
    "proxy/endpoint/wire.py": ("tests/proxy/endpoint/test_app.py", "the app's JSON-RPC rules, tested over HTTP"),
    "proxy/endpoint/io.py": ("tests/proxy/endpoint/test_app.py", "the app's HTTP framing, tested over HTTP"),
    "proxy/clients/drivers/paths.py": (
        "tests/proxy/scenarios/mrtr_provenance/test_runner_with_real_clients.py",
        "finds the installed clients those tests run",
    ),
    "proxy/scenarios/default/endpoint.py": (
        "tests/proxy/endpoint/test_app_with_sdk_client.py",
        "a scenario's tools are proved by a real client calling them",
    ),
    "proxy/scenarios/mrtr_provenance/endpoint.py": (
        "tests/proxy/scenarios/mrtr_provenance/test_runner_with_toy_agent.py",
        "a scenario's tools are proved by its runs",
    ),
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
            covered, reason = COVERED_ELSEWHERE.get(str(rel), ("", ""))
            if not mirror.exists() and not siblings and not (covered and reason and (ROOT / covered).is_file()):
                missing.append(str(rel))
    assert missing == [], f"modules without tests/…/test_<module>*.py: {missing}"


def test_no_module_is_exempted_that_has_a_test_file_of_its_own():
    for source in COVERED_ELSEWHERE:
        rel = Path(source)
        assert not list((ROOT / "tests" / rel.parent).glob(f"test_{rel.stem}*.py")), f"{source} needs no exemption"
        assert (ROOT / source).is_file(), f"{source} no longer exists"
