"""`--build NAME=PYTHON`, as the benches that compare builds read it: a name fit for tables and file names, and an
interpreter that can run. Each bench keeps its own Build record (what it needs to know of a build differs)."""

from __future__ import annotations

import argparse
import os
import re


def name_and_python(spec: str) -> tuple[str, str]:
    """The NAME and PYTHON of `spec`, or an argparse error saying what is wrong with it."""
    name, sep, python = spec.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise argparse.ArgumentTypeError(f"--build wants NAME=PYTHON with NAME of [A-Za-z0-9_.-], got {spec!r}")
    if not os.access(python, os.X_OK):
        raise argparse.ArgumentTypeError(f"--build {name}: {python} is not an executable interpreter")
    return name, python
