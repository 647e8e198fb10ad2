"""`matrix PATH... --out DIR` writes the site and says where; bad input is one line and exit 2."""

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import typer
from typer.testing import CliRunner

from backchannel.proxy.matrix.command import matrix_command
from tests.proxy.matrix.conftest import REFERENCES, ROOT

# the README's "Browse a compatibility matrix" section shows exactly this command, run from a checkout's root
README_COMMAND = "backchannel matrix recordings/reference --out site"
BACKCHANNEL = Path(sys.executable).parent / "backchannel"


def _invoke(*args: str) -> tuple[int, str, str]:
    app = typer.Typer()
    app.command()(matrix_command)
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_it_writes_the_site_from_a_folder_and_says_how_many_case_pages(tmp_path: Path):
    # a folder of three references: the whole folder is built (and held to docs/matrix byte for byte) by the README
    # command's test below; judging all of them again here would only repeat that work
    folder = tmp_path / "recordings"
    folder.mkdir()
    for name in ("mrtr-provenance-toy-flawed", "mrtr-provenance-py-sdk", "elicitation-url-mode-ts-sdk"):
        shutil.copyfile(REFERENCES / f"{name}.sqlite", folder / f"{name}.sqlite")
    code, out, _ = _invoke(str(folder), "--out", str(tmp_path / "site"))
    pages = list((tmp_path / "site" / "cases").rglob("*.html"))
    assert {page.parent.name for page in pages} == {p.stem for p in folder.iterdir()}
    assert code == 0 and out == f"wrote {len(pages)} case pages to {tmp_path / 'site' / 'index.html'}\n"


def test_it_takes_files_and_globs_like_judge(tmp_path: Path):
    one = REFERENCES / "mrtr-provenance-toy-flawed.sqlite"
    code, _, _ = _invoke(str(one), str(REFERENCES / "elicitation-url-mode-py-*.sqlite"), "--out", str(tmp_path / "s"))
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "s" / "cases").iterdir()) == [
        "elicitation-url-mode-py-sdk",
        "elicitation-url-mode-py-sdk-2025-06-18",
        "elicitation-url-mode-py-sdk-2025-11-25",
        "elicitation-url-mode-py-sdk-stdio",
        "mrtr-provenance-toy-flawed",
    ]


def test_a_missing_path_is_one_line_and_exit_2(tmp_path: Path):
    code, out, err = _invoke(str(tmp_path / "nope.sqlite"), "--out", str(tmp_path / "site"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "no such recording or folder" in err
    assert not (tmp_path / "site").exists()


def test_a_file_that_is_no_recording_is_one_line_and_exit_2(tmp_path: Path):
    (tmp_path / "junk.sqlite").write_bytes(b"\x1b[2J not a database")
    code, _, err = _invoke(str(tmp_path / "junk.sqlite"), "--out", str(tmp_path / "site"))
    assert code == 2 and err.count("\n") == 1 and "is not a SQLite database" in err


def test_an_output_folder_holding_other_files_is_refused_with_exit_2(tmp_path: Path):
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    code, _, err = _invoke(str(REFERENCES / "mrtr-provenance-toy-flawed.sqlite"), "--out", str(tmp_path))
    assert code == 2 and "holds no matrix site" in err and err.count("\n") == 1


def test_the_readme_command_run_as_written_from_a_checkout_builds_the_committed_site(tmp_path: Path):
    shutil.copytree(REFERENCES, tmp_path / "recordings" / "reference")
    argv = shlex.split(README_COMMAND)
    done = subprocess.run(
        [str(BACKCHANNEL), *argv[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    built = {p.relative_to(tmp_path / "site"): p.read_bytes() for p in (tmp_path / "site").rglob("*") if p.is_file()}
    committed = {
        p.relative_to(ROOT / "docs" / "matrix"): p.read_bytes()
        for p in (ROOT / "docs" / "matrix").rglob("*")
        if p.is_file()
    }
    assert built == committed
