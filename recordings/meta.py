"""The meta table: what a recording says about itself. Its keys are spelled here (and in shapes.py, redactions.py)
only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Self

from .redactions import Redactions
from .shapes import Discovery, Invocation, ProbeOptions, UrlServers


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


# meta `stored_report` and `stored_report_oracle_version`: the JSON report a recording was judged to and the oracle
# version that judged it (written and read by reports.py, through a checked copy; never by the proxy)
STORED_REPORT_KEY = "stored_report"
STORED_REPORT_VERSION_KEY = "stored_report_oracle_version"

MetaValue = ProbeOptions | Discovery | UrlServers | Invocation | ProxyStartup | Redactions
