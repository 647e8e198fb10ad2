"""`judge --shard K/N` splits a corpus the same way everywhere; each shard is the same on every machine."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from backchannel.proxy.judging.inputs import expand
from backchannel.proxy.judging.shard import select
from tests.proxy.judging.conftest import as_json, run_cli

SHARDS = 3


def _names(doc: dict[str, object]) -> list[str]:
    return [str(item["name"]) for item in doc["recordings"]]  # type: ignore[attr-defined]


def test_the_shards_of_a_corpus_are_disjoint_and_together_hold_every_recording(some_corpus: Path) -> None:
    corpus = some_corpus
    every = [str(i.path) for i in expand([str(corpus)])]
    parts = [
        _names(as_json(run_cli("judge", corpus, "--shard", f"{k}/{SHARDS}", "--format", "json"))) for k in (1, 2, 3)
    ]
    assert sorted(name for part in parts for name in part) == sorted(every)
    assert all(part for part in parts), "every shard holds something"


def test_a_shard_is_the_same_wherever_the_corpus_lies(corpus: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere" / "deeper"
    shutil.copytree(corpus, moved)
    for k in (1, 2, 3):
        here = [i.relative for i in select(expand([str(corpus)]), k, SHARDS)]
        there = [i.relative for i in select(expand([str(moved)]), k, SHARDS)]
        assert here == there


@pytest.mark.parametrize("spec", ["0/3", "4/3", "a/b", "1/0", "1"])
def test_a_bad_shard_is_one_clear_line_and_exit_2(some_corpus: Path, spec: str) -> None:
    done = run_cli("judge", some_corpus, "--shard", spec)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--shard" in done.stderr
