"""The run side of `roots`: the client as its user configured it (`contract`), then the dedicated `undeclared` run.

Each run's lab is made here, so its folders are known before the client starts and are kept as the run's facts
(`lab_folders`: the working folder as given and as resolved, the one folder the lab configures for the client; and
`lab_home`): the oracle compares the roots a client gives with them. A client is told of its folder the way a user
tells a CLI: it runs in it (its cwd). The `undeclared` run goes to a second endpoint whose tool asks for roots even
a client that declared none (`ask_undeclared`); nothing else in backchannel asks out of turn.
"""

from __future__ import annotations

import json
from pathlib import Path

from backchannel.oracle.scenarios.roots.facts import (
    ASK_UNDECLARED,
    CONTRACT_RUN,
    LAB_FOLDERS,
    LAB_HOME,
    SCENARIO,
    UNDECLARED_RUN,
)
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.run.lab import Lab
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Progress
from backchannel.proxy.scenarios.roots.endpoint import TOOLS, listen
from backchannel.recordings.shapes import Invocation, ProbeOptions


def run(options: CheckOptions, progress: Progress) -> Path:
    """The `contract` run, then the `undeclared` run, of `--client`."""
    if not options.client:
        raise CheckError(f'--scenario {SCENARIO} runs a client: give --client "CMD ... {{url}}"')
    client = tuple(options.client)
    config = EndpointConfig(tools=TOOLS, era=options.era, listen=listen)
    with Capture(
        options.out,
        endpoint=config,
        scenario=SCENARIO,
        meta=(ProbeOptions(client=client),),
        env=options.env,
        max_output=options.max_output,
        mcp_config=options.mcp_config,
        tty=options.tty,
        redaction=options.redaction,
        limits=options.limits,
    ) as capture:
        capture.set_meta(Invocation(argv=client))
        asking = capture.start_endpoint(
            EndpointConfig(tools=TOOLS, era=options.era, listen=listen, params={ASK_UNDECLARED: "1"})
        )
        for name, upstream, what in (
            (CONTRACT_RUN, None, "the client as configured: roots asked of a client that declared them"),
            (UNDECLARED_RUN, asking.url, "the dedicated run: roots asked even of a client that declared none"),
        ):
            assert capture.labs is not None
            handle = capture.new_run(name, {}, scenario=SCENARIO, upstream=upstream)
            lab = Lab(handle.id, parent=capture.labs)
            folders = sorted({str(lab.work), str(lab.work.resolve())})
            capture.add_facts(handle, {LAB_FOLDERS: json.dumps(folders), LAB_HOME: str(lab.home)})
            progress(f"running {what}")
            capture.run_client(handle, list(client), timeout=options.timeout, stdin=options.stdin, lab=lab)
    return options.out
