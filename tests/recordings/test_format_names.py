"""The reader's list of format names is the migrations' own list, so a reader without sqlite_utils knows them all."""

from __future__ import annotations

import subprocess
import sys

from backchannel.recordings import format_names, migrations


def test_the_names_are_the_migrations_in_the_order_they_are_applied():
    assert format_names.known_migrations() == migrations.known_migrations()
    assert migrations.latest() == format_names.NAMES[-1]


def test_the_tables_read_as_is_are_made_by_known_migrations_after_the_first():
    assert format_names.READ_AS_IS <= set(format_names.NAMES[1:])


def test_loading_a_recording_imports_no_sqlite_utils():
    code = "import sys\nfrom backchannel.recordings import load\nprint('sqlite_utils' in sys.modules)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False"
