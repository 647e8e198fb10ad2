"""Judging many recordings at once: inputs, parallel judging, summaries, baselines, shards, merges and diffs.

Each module has one job; `backchannel judge PATH...` and `backchannel merge-reports` compose them.
"""
