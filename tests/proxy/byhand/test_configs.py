"""The paste-ready configurations of a by-hand lab: each form's exact text for one URL and server name, and the
folder they are written to."""

from __future__ import annotations

import json
import shlex
import stat
import sys
import tomllib
from pathlib import Path

from backchannel.proxy.byhand.configs import configs, toml_document, write_configs
from backchannel.proxy.run.placeholders import bridge_argv

URL = "http://127.0.0.1:8765/mcp"
NAME = "backchannel-lab"


def _by_file() -> dict[str, str]:
    return {config.file: config.text for config in configs(NAME, URL)}


def test_there_is_one_file_per_form_and_each_says_which_hosts_read_it() -> None:
    found = configs(NAME, URL)
    assert [c.file for c in found] == [
        "mcpServers.json",
        "vscode-mcp.json",
        "mcp_servers.toml",
        "stdio-mcpServers.json",
        "stdio-command.txt",
    ]
    assert all(c.label for c in found)


def test_the_mcpservers_form_is_the_url_under_the_servers_name() -> None:
    assert _by_file()["mcpServers.json"] == (
        '{\n  "mcpServers": {\n    "backchannel-lab": {\n      "url": "http://127.0.0.1:8765/mcp"\n    }\n  }\n}\n'
    )


def test_the_vscode_form_is_servers_with_an_http_type() -> None:
    assert json.loads(_by_file()["vscode-mcp.json"]) == {"servers": {NAME: {"type": "http", "url": URL}}}


def test_the_toml_form_is_an_mcp_servers_table_with_the_url() -> None:
    text = _by_file()["mcp_servers.toml"]
    assert text == '[mcp_servers.backchannel-lab]\nurl = "http://127.0.0.1:8765/mcp"\n'
    assert tomllib.loads(text) == {"mcp_servers": {NAME: {"url": URL}}}


def test_a_server_name_that_is_not_a_bare_toml_key_is_quoted_so_the_document_still_reads_back() -> None:
    text = toml_document('lab.one "x"', URL)
    assert tomllib.loads(text) == {"mcp_servers": {'lab.one "x"': {"url": URL}}}


def test_the_stdio_forms_spawn_backchannel_bridge_with_the_url() -> None:
    argv = bridge_argv(URL)
    assert argv[0] == sys.executable and "bridge" in " ".join(argv) and argv[-1] == URL
    document = json.loads(_by_file()["stdio-mcpServers.json"])
    assert document == {"mcpServers": {NAME: {"command": argv[0], "args": argv[1:]}}}
    assert shlex.split(_by_file()["stdio-command.txt"]) == argv


def test_every_form_is_written_to_the_folder_which_is_made_owner_only(tmp_path: Path) -> None:
    folder = tmp_path / "configs"
    found = configs(NAME, URL)
    written = write_configs(folder, found)
    assert written == [folder / c.file for c in found]
    assert [path.read_text(encoding="utf-8") for path in written] == [c.text for c in found]
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0


def test_writing_again_replaces_the_files_of_an_earlier_lab(tmp_path: Path) -> None:
    write_configs(tmp_path, configs(NAME, "http://127.0.0.1:1/mcp"))
    write_configs(tmp_path, configs(NAME, URL))
    assert json.loads((tmp_path / "mcpServers.json").read_text(encoding="utf-8"))["mcpServers"][NAME]["url"] == URL
