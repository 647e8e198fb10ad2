"""meta `redactions:<source>`: what one writing process redacted, as the recording keeps it (names and counts).

Its own module, below redact.py which makes these records: redact imports it and the JSON form only, so the shapes
(which hide secrets through redact) and the meta entries (which name this one among a recording's meta values)
import redact without importing round a circle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Self

from .json_form import json_text, parse_json


@dataclass(frozen=True, slots=True, kw_only=True)
class Redactions:
    """meta `redactions:<source>`: what one writing process (`proxy`, `harness`) redacted, by kind then name, with
    counts, and the `--redact` patterns it added. Names and counts only: a value is never written anywhere."""

    PREFIX: ClassVar[str] = "redactions:"
    source: str
    counts: Mapping[str, Mapping[str, int]]
    patterns: tuple[str, ...] = ()

    def meta_entry(self) -> tuple[str, str]:
        value = {"counts": {k: dict(v) for k, v in self.counts.items()}, "patterns": list(self.patterns)}
        return self.PREFIX + self.source, json_text(value)

    @classmethod
    def read_all(cls, meta: Mapping[str, str]) -> tuple[Self, ...]:
        """Every process's entry, in key order; a damaged entry reads as empty counts (total, like every reader)."""
        out = []
        for key in sorted(k for k in meta if k.startswith(cls.PREFIX)):
            value = parse_json(meta[key])
            value = value if isinstance(value, dict) else {}
            raw = value.get("counts")
            counts = {
                kind: {n: c for n, c in names.items() if isinstance(c, int) and not isinstance(c, bool)}
                for kind, names in (raw.items() if isinstance(raw, dict) else ())
                if isinstance(names, dict)
            }
            patterns = value.get("patterns")
            kept = tuple(p for p in patterns if isinstance(p, str)) if isinstance(patterns, list) else ()
            out.append(cls(source=key[len(cls.PREFIX) :], counts=counts, patterns=kept))
        return tuple(out)

    def line(self) -> str:
        """One line for `show`: kind name×count, ..."""
        parts = [f"{kind} {name}x{count}" for kind, names in self.counts.items() for name, count in names.items()]
        return f"redacted by {self.source}: " + (", ".join(parts) if parts else "nothing")
