"""Meta-tests: every check is documented, tested and listed in the README; tests mirror the source tree."""

import re
from pathlib import Path

from backchannel.oracle import all_checks

ROOT = Path(__file__).resolve().parent.parent


def test_every_check_has_a_docstring_a_spec_link_and_its_own_test_file():
    for check in all_checks().values():
        module = check.fn.__module__.rsplit(".", 1)[-1]
        assert check.doc and check.spec.startswith("https://")
        assert (ROOT / "tests" / "oracle" / "checks" / f"test_{module}.py").is_file(), module
        assert module == check.id.replace("-", "_"), f"{check.id} lives in {module}.py"


def test_the_readme_check_table_lists_exactly_the_registered_checks():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = set(re.findall(r"^\| `([a-z0-9-]+)` \| `[a-z0-9-]+` \|", readme, re.MULTILINE))
    assert table == set(all_checks())


# Modules whose behaviour is proved through a process boundary (mitmdump, a client subprocess) or by the module
# that drives them; each names the test that covers it, and that test must exist.
COVERED_ELSEWHERE = {
    "addons/entry.py": "tests/e2e/test_mutations_with_sdk_client.py",
    "addons/router.py": "tests/e2e/test_mutations_with_sdk_client.py",
    "addons/rewriter.py": "tests/e2e/test_mutations_with_sdk_client.py",
    "addons/recorder.py": "tests/e2e/test_bad_input.py",
    "addons/hold.py": "tests/e2e/test_held_sse_timing.py",
    "oracle/model.py": "tests/oracle/test_judge.py",
    "oracle/mrtr_facts.py": "tests/oracle/checks/test_mrtr_provenance_input_requests.py",
    "oracle/mrtr_result_type.py": "tests/oracle/checks/test_mrtr_provenance_result_type_default.py",
    "oracle/detectors/carriers.py": "tests/oracle/checks/test_elicitation_names_requesting_server.py",
    "recordings/model.py": "tests/recordings/test_reader.py",
    "recordings/errors.py": "tests/recordings/test_reader.py",
    "recordings/migrations.py": "tests/recordings/test_store.py",
    "proxy/cli.py": "tests/e2e/test_cli_record_and_show.py",
    "proxy/record.py": "tests/e2e/test_cli_record_and_show.py",
    "proxy/sample_client.py": "tests/e2e/test_cli_record_and_show.py",
    "proxy/timeline.py": "tests/e2e/test_cli_record_and_show.py",
    "proxy/mitm.py": "tests/e2e/test_bad_input.py",
    "proxy/capture.py": "tests/e2e/test_bad_input.py",
    "proxy/check.py": "tests/proxy/test_probe_mrtr_with_toy_agent.py",
    "proxy/probe_mrtr.py": "tests/proxy/test_probe_mrtr_with_toy_agent.py",
    "proxy/endpoint_tools.py": "tests/proxy/test_endpoint.py",
    "proxy/endpoint_wire.py": "tests/proxy/test_endpoint.py",
    "proxy/endpoint_io.py": "tests/proxy/test_endpoint.py",
    "proxy/endpoint_server.py": "tests/proxy/test_endpoint.py",
    "proxy/toy_agent_wire.py": "tests/proxy/test_toy_agent.py",
    "proxy/scenarios/default.py": "tests/proxy/test_endpoint_with_sdk_client.py",
    "proxy/scenarios/mrtr_provenance.py": "tests/proxy/test_probe_mrtr_with_toy_agent.py",
    "proxy/scenarios/elicitation_url_mode.py": "tests/proxy/test_url_mode_scenario.py",
    "proxy/probe_url_mode.py": "tests/proxy/test_url_mode_scenario.py",
    "proxy/url_servers.py": "tests/proxy/test_url_mode_scenario.py",
    "oracle/url_mode_facts.py": "tests/oracle/checks/test_sep_2322_client_constructs_inputs.py",
    "proxy/drivers/paths.py": "tests/proxy/test_real_clients_mrtr_probe.py",
    "oracle/held_retry.py": "tests/oracle/checks/test_sep_1036_client_held_json_retry_complete.py",
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
