"""The README's "Attach a recording to a bug report" section: every command in it runs, exactly as written.

SHARING_SECTION is the section's text; the README quotes it verbatim (a test compares), and each command line in its
bash blocks is run here, from a folder where `recordings/reference` is the committed one, through the real CLI.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from markdown_it import MarkdownIt

from backchannel.recordings import load

ROOT = Path(__file__).resolve().parents[3]
SHARING_SECTION = """\
## Attach a recording to a bug report

```bash
backchannel bug-report recordings/reference/mrtr-provenance-toy-flawed.sqlite --out flawed-report
```

writes the folder `flawed-report/`, ready to attach to an issue: `REPORT.md` (renders on GitHub: backchannel's,
the client's and the server's names and versions, each FAIL, CONFIRMED or ERROR check with its message and the wire
and terminal lines its evidence cites, and the commands that reproduce it: re-judging the attached recording, and,
when the recording names its client, re-running that client against a replay of the recorded server), the recording
itself, redacted, and its HAR. Everything in the folder is built from the redacted copy.

To share the traffic with HTTP tools instead:

```bash
backchannel export recordings/reference/mrtr-provenance-toy-flawed.sqlite --format har --redact user --out flawed.har
backchannel export recordings/reference/mrtr-provenance-toy-flawed.sqlite --format mitm --run probe --out probe.mitm
mitmdump -n -r probe.mitm
backchannel export recordings/reference/mrtr-provenance-toy-flawed.sqlite --format sqlite --run probe --out probe.sqlite
```

HAR 1.2 and `.mitm` files are written by mitmproxy itself and hold each exchange as the client saw it (the response
after backchannel's mutations, SSE bodies whole); a flow backchannel changed is marked and its comment says how
(open the `.mitm` in mitmweb or mitmproxy with `-r`). `sqlite` is a copy of the recording holding only the chosen
runs. Every export is redacted again on the way out (the defaults, the recording's own `--redact` patterns, and the
export's: `--redact user` above also hides any header, query parameter or JSON member whose name matches `user`), and
prints on stderr what it redacted (names and counts, never values). See [docs/sharing.md](docs/sharing.md).
"""


def commands() -> list[str]:
    blocks = [t.content for t in MarkdownIt("commonmark").parse(SHARING_SECTION) if t.type == "fence"]
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def argv(command: str) -> list[str]:
    words = shlex.split(command)
    if words[0] == "backchannel":
        return [sys.executable, "-m", "backchannel.proxy.cli", *words[1:]]
    return [str(Path(sys.executable).with_name(words[0])), *words[1:]]


def test_every_command_of_the_section_runs_as_written_and_makes_what_it_says(tmp_path):
    (tmp_path / "recordings").symlink_to(ROOT / "recordings")
    for command in commands():
        done = subprocess.run(argv(command), cwd=tmp_path, capture_output=True, text=True, timeout=120, env=os.environ)
        assert done.returncode == 0, f"{command}: {done.stderr}"
    assert {p.name for p in (tmp_path / "flawed-report").iterdir()} == {
        "REPORT.md",
        "mrtr-provenance-toy-flawed.sqlite",
        "mrtr-provenance-toy-flawed.har",
    }
    assert json.loads((tmp_path / "flawed.har").read_text())["log"]["version"] == "1.2"
    assert [r.name for r in load(tmp_path / "probe.sqlite").runs] == ["probe"]


def test_the_readme_quotes_the_section_verbatim():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert SHARING_SECTION in readme


def test_the_section_names_only_flags_the_commands_take():
    flags = {w for c in commands() for w in shlex.split(c) if w.startswith("--")}
    assert flags == {"--out", "--format", "--run", "--redact"}
    assert all(re.match(r"(backchannel (export|bug-report)|mitmdump) ", c) for c in commands())
