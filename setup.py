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


# a data-only folder inside a package (`recipes/`, `templates/`: the DATA patterns with a folder) is named as a
# package of its own, holding the rest of its pattern: the same files ship, and setuptools, which takes any such
# folder for a namespace package, no longer warns at every install that it "would be ignored"
DATA_FOLDERS = {pattern.split("/", 1)[0]: pattern.split("/", 1)[1] for pattern in DATA if "/" in pattern}


def package_dirs() -> dict[str, str]:
    found = {}
    for folder in TOP_LEVEL:
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            rel = init.parent.relative_to(ROOT)
            found[".".join(("backchannel", *rel.parts))] = rel.as_posix()
    return found


def with_data_packages(packages: dict[str, str]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Every package (code and data-only) with its folder, and the files each ships."""
    dirs = dict(packages)
    data = {name: [pattern for pattern in DATA if "/" not in pattern] for name in packages}
    for name, rel in packages.items():
        for folder, pattern in DATA_FOLDERS.items():
            inner = ROOT / rel / folder
            if inner.is_dir() and not (inner / "__init__.py").exists():
                dirs[f"{name}.{folder}"], data[f"{name}.{folder}"] = f"{rel}/{folder}", [pattern]
    return dirs, data


PACKAGE_DIRS, PACKAGE_DATA = with_data_packages(package_dirs())
setup(packages=sorted(PACKAGE_DIRS), package_dir=PACKAGE_DIRS, package_data=PACKAGE_DATA)
