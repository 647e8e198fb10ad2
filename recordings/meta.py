"""The meta table: what a recording says about itself. Its keys are spelled here (and in shapes.py) only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Self

from .shapes import Discovery, Invocation, ProbeOptions, UrlServers, json_text, parse_json


def _float(text: str | None) -> float | None:
    try:
        return None if text is None else float(text)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordingInfo:
    """The plain-text entries a recording is created with: who made it, for which scenario, with which nonce."""

    tool: str = "backchannel"
    tool_version: str | None = None
    mitmproxy_version: str | None = None
    nonce: str | None = None
    created_at: float | None = None
    scenario: str | None = None

    def meta_entries(self) -> list[tuple[str, str]]:
        out = [("tool", self.tool)]
        for key, value in (
            ("tool_version", self.tool_version),
            ("mitmproxy_version", self.mitmproxy_version),
            ("nonce", self.nonce),
            ("created_at", None if self.created_at is None else f"{self.created_at:.3f}"),
            ("scenario", self.scenario),
        ):
            if value is not None:
                out.append((key, value))
        return out

    @classmethod
    def read(cls, meta: Mapping[str, str]) -> Self:
        """Total: an absent or unreadable entry reads as None."""
        return cls(
            tool=meta.get("tool", ""),
            tool_version=meta.get("tool_version"),
            mitmproxy_version=meta.get("mitmproxy_version"),
            nonce=meta.get("nonce"),
            created_at=_float(meta.get("created_at")),
            scenario=meta.get("scenario"),
        )


@dataclass(frozen=True, slots=True)
class ProxyStartup:
    """meta `proxy_startup_seconds`: how long mitmdump took to accept connections."""

    KEY: ClassVar[str] = "proxy_startup_seconds"
    seconds: float

    def meta_entry(self) -> tuple[str, str]:
        return self.KEY, f"{self.seconds:.3f}"


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


# meta `stored_report` and `stored_report_oracle_version`: the JSON report a recording was judged to and the oracle
# version that judged it (written and read by reports.py, through a checked copy; never by the proxy)
STORED_REPORT_KEY = "stored_report"
STORED_REPORT_VERSION_KEY = "stored_report_oracle_version"

MetaValue = ProbeOptions | Discovery | UrlServers | Invocation | ProxyStartup | Redactions
