"""The sdk-regressions scenario's committed references: the toy agent's careful `regressions` client and each of
its `--regression-flaw` builds (each has one bug a real SDK shipped), in 2026-07-28 and, where the check applies
there too, the 2025 eras; and the Python and TypeScript SDK drivers as shipped."""

from __future__ import annotations

from backchannel.proxy.clients.toy_agent_regressions import REGRESSION_FLAWS
from backchannel.proxy.scenarios.references import Invocation, Reference, py_sdk, toy, ts_sdk

ERAS = ("2026-07-28", "2025-11-25", "2025-06-18")
EVERY_ERA = ("reuse-declined",)  # the flaws whose check applies in the 2025 eras too


def regressions(*args: str) -> Invocation:
    return toy("regressions", *args, "{url}")


def _suffix(era: str) -> str:
    return "" if era == "2026-07-28" else f"-{era}"


REFERENCES = (
    *(
        Reference(f"toy-careful{_suffix(era)}", regressions(), False,
                  f"the toy agent's careful regressions client, check --era {era}", era=era)
        for era in ERAS
    ),
    *(
        Reference(f"toy-{flaw}{_suffix(era)}", regressions("--regression-flaw", flaw), False,
                  f"the toy agent's regressions client with --regression-flaw {flaw} (breaks {check}), --era {era}",
                  era=era)
        for flaw, check in REGRESSION_FLAWS.items()
        for era in (ERAS if flaw in EVERY_ERA else ERAS[:1])
    ),
    *(
        Reference(f"{name}{_suffix(era)}", argv, False, f"the {label} driver as shipped, check --era {era}", era=era)
        for name, argv, label in (("py-sdk", py_sdk, "Python SDK"), ("ts-sdk", ts_sdk, "TypeScript SDK v2"))
        for era in ERAS[:2]
    ),
)  # fmt: skip
