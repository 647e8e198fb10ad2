"""Package layout: the four top-level folders are installed as `backchannel.<folder>`, every subpackage found.

pyproject.toml holds the metadata; this file only maps folders to package names, so adding a scenario (a folder
on each side) needs no edit here. Re-run scripts/bootstrap after adding a module: the strict editable install
links files one by one (it is what lets mypy resolve the mapped names).
"""

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
TOP_LEVEL = ("proxy", "addons", "oracle", "recordings")
DATA = [
    "py.typed",
    "*.toml",
    "recipes/*.toml",
    "*.json",
    "*.mjs",
    "*.md",
    "LICENSE",
    "*.j2",
    "*.html",
    "*.css",
    "templates/*",
]


def package_dirs() -> dict[str, str]:
    found = {}
    for folder in TOP_LEVEL:
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            rel = init.parent.relative_to(ROOT)
            found[".".join(("backchannel", *rel.parts))] = rel.as_posix()
    return found


PACKAGE_DIRS = package_dirs()
setup(packages=sorted(PACKAGE_DIRS), package_dir=PACKAGE_DIRS, package_data={name: DATA for name in PACKAGE_DIRS})
