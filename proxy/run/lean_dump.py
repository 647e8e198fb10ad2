"""mitmdump with only the addons a recording reverse proxy uses: mitmproxy's own Master, main loop (`main.run`),
option handling and addons, minus the default addons backchannel never calls on.

Why: importing the package `mitmproxy.addons` imports every default addon, and with them Flask (the onboarding
app), an LDAP client (proxy auth), the flow-filter grammar (blocklists, playback) and more. That is about half of
mitmdump's start-up (0.5 of 1.1 CPU-seconds measured on a 2.1 GHz Xeon), and every `check`, `record` and `replay`
starts a proxy. Here the package is put in `sys.modules` without running its `__init__`, so each addon kept is
imported alone; mitmproxy's own modules import only the submodules they name (`from .addons import termlog`).

The command line is the subset `launcher.mitmdump_argv` writes (`-q`, `--set`, `--mode`, `-s`), parsed by
mitmproxy's own option parsers. `mitmweb` (`record --ui web`) still runs mitmproxy's full tool.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from collections.abc import Sequence
from typing import Any

# the default addons kept, in mitmproxy's own order (`mitmproxy.addons.default_addons`, then DumpMaster's). Not
# keepserving: it only decides when replay or a read file has ended, and reads those addons' options to do so.
KEPT = (
    "core",
    "disable_h2c",
    "proxyserver",
    "script",
    "next_layer",
    "tlsconfig",
    "update_alt_svc",
    "errorcheck",
)


def skip_default_addons_import() -> None:
    """Register the `mitmproxy.addons` package without running its `__init__` (which imports every addon); its
    submodules still import normally. A no-op if something imported the package already."""
    if "mitmproxy.addons" in sys.modules:
        return
    spec = importlib.util.find_spec("mitmproxy.addons")
    if spec is None or spec.submodule_search_locations is None:  # pragma: no cover - mitmproxy is a dependency
        raise ImportError("mitmproxy.addons is not a package")
    sys.modules["mitmproxy.addons"] = importlib.util.module_from_spec(spec)


def preload() -> None:
    """Import what `dump` needs (mitmproxy's master, main loop and the kept addons) without starting anything: a
    warm mitmdump (launcher.prespawn) does it before it knows its command line."""
    skip_default_addons_import()
    import mitmproxy.master
    import mitmproxy.tools.main
    from mitmproxy.addons import (  # noqa: F401 - imported for their cost, not their names
        core,
        disable_h2c,
        errorcheck,
        next_layer,
        proxyserver,
        script,
        tlsconfig,
        update_alt_svc,
    )

    del mitmproxy


# the options under which mitmproxy's TlsConfig (re)loads its CA store
CA_OPTIONS = frozenset({"certs", "confdir", "key_size", "cert_passphrase", "emudhra", "emudhra_old"})
_preloaded: dict[tuple[str, int], Any] = {}  # (confdir, key size) -> the CA store a warm mitmdump loaded early


def preload_ca(confdir: str) -> None:
    """Load (or, the first time on a machine, create) the CA store in `confdir` now, with mitmproxy's default key
    size (the launcher never sets another): a warm mitmdump does it before it knows its command line, and the TLS
    addon takes it if its options name the same store."""
    from mitmproxy import certs
    from mitmproxy.addons import tlsconfig
    from mitmproxy.options import KEY_SIZE as key_size

    path = os.path.expanduser(confdir)
    basename = tlsconfig.CONF_BASENAME  # type: ignore[attr-defined]
    _preloaded[(path, key_size)] = certs.CertStore.from_store(path=path, basename=basename, key_size=key_size)


def tls_config() -> Any:
    """mitmproxy's TlsConfig, its CA store loaded once per start instead of twice (about 90 ms of CPU each).

    mitmproxy's own loads the store when its options are configured, then again in `running` (a workaround for a
    configure hook an older mitmproxy could miss); here `running` loads it only if configure did not. And a store
    `preload_ca` loaded for the same confdir and key size is taken as it is, when no option asks for more than that
    plain store (extra certificates, a passphrase, the eMudhra chain): then mitmproxy loads it its own way."""
    from mitmproxy import ctx
    from mitmproxy.addons import tlsconfig

    class TlsConfigLoadedOnce(tlsconfig.TlsConfig):
        def configure(self, updated: set[str]) -> None:
            opts = ctx.options
            plain = not (opts.certs or opts.cert_passphrase or opts.emudhra or opts.emudhra_old)
            key = (os.path.expanduser(opts.confdir), int(opts.key_size))
            store = _preloaded.pop(key, None) if plain and CA_OPTIONS & updated else None
            if store is None or store.default_ca.has_expired():  # an expired CA: mitmproxy's own load warns
                super().configure(updated)  # type: ignore[no-untyped-call]
                return
            self.certstore = store
            super().configure(set(updated) - CA_OPTIONS)  # type: ignore[no-untyped-call]

        def running(self) -> None:
            if self.certstore is None:
                super().running()

    return TlsConfigLoadedOnce()


def kept_addons() -> list[Any]:
    """One instance of each kept addon, in KEPT's order."""
    from mitmproxy.addons import (
        core,
        disable_h2c,
        errorcheck,
        next_layer,
        proxyserver,
        script,
        update_alt_svc,
    )

    made = {
        "core": core.Core(),
        "disable_h2c": disable_h2c.DisableH2C(),
        "proxyserver": proxyserver.Proxyserver(),  # type: ignore[no-untyped-call]
        "script": script.ScriptLoader(),  # type: ignore[no-untyped-call]
        "next_layer": next_layer.NextLayer(),
        "tlsconfig": tls_config(),
        "update_alt_svc": update_alt_svc.UpdateAltSvc(),
        "errorcheck": errorcheck.ErrorCheck(),
    }
    return [made[name] for name in KEPT]


def parser(opts: Any) -> argparse.ArgumentParser:
    """mitmdump's arguments that the launcher writes, plus those `main.run` reads (`--version`, `--options`,
    `--commands`, `-v`); `--mode` and `-s` come from the options themselves, as in mitmdump."""
    made = argparse.ArgumentParser(prog="mitmdump (backchannel)", usage="%(prog)s [options]")
    made.add_argument("--version", action="store_true", dest="version")
    made.add_argument("--options", action="store_true")
    made.add_argument("--commands", action="store_true")
    made.add_argument("--set", type=str, dest="setoptions", default=[], action="append", metavar="option[=value]")
    made.add_argument("-q", "--quiet", action="store_true", dest="quiet")
    made.add_argument("-v", "--verbose", action="store_const", dest="verbose", const="debug")
    opts.make_parser(made, "mode", short="m")
    opts.make_parser(made, "scripts", metavar="SCRIPT", short="s")
    return made


def dump(arguments: Sequence[str] | None = None) -> None:
    """Run the lean mitmdump on `arguments` (default: this process's own) until it is shut down."""
    skip_default_addons_import()
    from mitmproxy import master
    from mitmproxy.tools import main

    class LeanMaster(master.Master):
        def __init__(self, opts: Any, event_loop: Any = None) -> None:
            super().__init__(opts, event_loop=event_loop, with_termlog=True)
            self.addons.add(*kept_addons())  # type: ignore[no-untyped-call]

    from backchannel.proxy.timings import mark

    mark("mitmdump-imported")
    main.run(LeanMaster, parser, sys.argv[1:] if arguments is None else arguments)
