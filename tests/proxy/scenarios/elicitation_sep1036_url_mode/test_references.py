"""The server scenario's reference declarations: the bundled server, both SDK servers, and one broken server per
switch of tests/servers/url_elicitation_broken.py."""

from __future__ import annotations

import sys
from pathlib import Path

from backchannel.proxy.scenarios.elicitation_sep1036_url_mode.references import BROKEN_SWITCHES, REFERENCES
from tests.servers.url_elicitation_broken import SWITCHES

ROOT = Path(__file__).resolve().parents[4]


def test_there_is_one_broken_server_reference_per_switch_and_each_starts_that_server():
    assert set(BROKEN_SWITCHES) == set(SWITCHES)
    broken = {ref.name: ref.argv(ROOT) for ref in REFERENCES if ref.name.startswith("broken-")}
    server = str(ROOT / "tests" / "servers" / "url_elicitation_broken.py")
    assert broken == {f"broken-{switch}": [sys.executable, server, "--break", switch] for switch in BROKEN_SWITCHES}
    assert Path(server).is_file()


def test_every_reference_is_a_server_and_the_bundled_one_starts_none():
    assert all(ref.server and not ref.discover for ref in REFERENCES)
    assert next(ref for ref in REFERENCES if ref.name == "bundled").argv(ROOT) == []
