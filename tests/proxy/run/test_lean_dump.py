"""The lean mitmdump: mitmproxy's own Master and addons, only those a recording reverse proxy uses, started without
importing the rest; it reads the command line the launcher writes."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

from backchannel.addons import entry
from backchannel.proxy.run import lean_dump
from backchannel.proxy.run.launcher import mitmdump_argv

# the whole package, as mitmdump imports it (taddons does too): its proxy-auth addon's LDAP client touches names
# pyasn1 deprecates, an error under filterwarnings=error; imported once here, quietly
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from mitmproxy import addons
    from mitmproxy.test import taddons

from mitmproxy.options import KEY_SIZE

KEPT = lean_dump.KEPT
# what mitmdump's own DumpMaster adds after the default addons
DUMP_MASTER_OWN = {"dumper", "keepserving", "readfile", "errorcheck"}


def test_every_kept_addon_is_one_mitmdump_itself_loads_and_the_order_is_mitmproxys_own():
    defaults = [type(addon).__module__.rsplit(".", 1)[1] for addon in addons.default_addons()]
    assert set(lean_dump.KEPT) <= set(defaults) | DUMP_MASTER_OWN
    order = [*defaults, "dumper", "keepserving", "readfile", "errorcheck"]
    assert list(lean_dump.KEPT) == sorted(lean_dump.KEPT, key=order.index)
    # each kept addon is mitmproxy's own class (the TLS one a subclass of it that loads its CA once: see below)
    assert [_mitmproxys_class(a).__module__.rsplit(".", 1)[1] for a in lean_dump.kept_addons()] == list(lean_dump.KEPT)
    assert [type(a) is _mitmproxys_class(a) for a in lean_dump.kept_addons()] == [k != "tlsconfig" for k in KEPT]


def _mitmproxys_class(addon: object) -> type:
    return next(c for c in type(addon).__mro__ if c.__module__.startswith("mitmproxy.addons."))


def _tls(tmp_path: Path, **options: object) -> tuple[object, object]:
    """The kept TLS addon configured with a confdir in tmp_path (and `options`); its CA store."""
    addon = lean_dump.tls_config()
    with taddons.context(addon, loadcore=False) as tctx:
        tctx.configure(addon, confdir=str(tmp_path), **options)
        loaded = addon.certstore
        addon.running()
        return loaded, addon.certstore


def test_the_tls_addon_loads_its_ca_once_not_again_when_running(tmp_path: Path) -> None:
    loaded, running = _tls(tmp_path)
    assert loaded is not None and running is loaded  # mitmproxy's own loads a second, equal store here
    assert (tmp_path / "mitmproxy-ca.pem").exists()


def test_a_preloaded_ca_store_for_the_same_confdir_is_taken_as_it_is(tmp_path: Path) -> None:
    lean_dump.preload_ca(str(tmp_path))
    preloaded = lean_dump._preloaded[(str(tmp_path), KEY_SIZE)]
    loaded, _ = _tls(tmp_path)
    assert loaded is preloaded
    assert not lean_dump._preloaded  # taken once


def test_a_preloaded_ca_store_is_not_taken_for_another_confdir_or_when_options_ask_for_more(tmp_path: Path) -> None:
    lean_dump.preload_ca(str(tmp_path / "a"))
    preloaded = lean_dump._preloaded[(str(tmp_path / "a"), KEY_SIZE)]
    other, _ = _tls(tmp_path / "b")
    assert other is not preloaded and (tmp_path / "b" / "mitmproxy-ca.pem").exists()
    with_chain, _ = _tls(tmp_path / "a", emudhra=True)
    assert with_chain is not preloaded  # an option beyond the plain store: mitmproxy's own load, which applies it
    lean_dump._preloaded.clear()


def test_a_fresh_process_loads_the_kept_addons_and_none_of_the_unused_ones_heavy_imports():
    probe = (
        "import json, sys\n"
        "from backchannel.proxy.run import lean_dump\n"
        "lean_dump.skip_default_addons_import()\n"
        "import mitmproxy.master, mitmproxy.tools.main\n"
        "lean_dump.kept_addons()\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'ldap3') "
        "or m.startswith('mitmproxy.addons.'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    loaded = set(json.loads(done.stdout))
    assert {f"mitmproxy.addons.{name}" for name in lean_dump.KEPT} <= loaded
    assert not {m for m in loaded if m.split(".")[0] in ("flask", "ldap3")}
    assert "mitmproxy.addons.onboarding" not in loaded and "mitmproxy.addons.proxyauth" not in loaded


def test_skipping_the_package_import_is_a_no_op_once_the_package_is_imported():
    before = sys.modules["mitmproxy.addons"]
    lean_dump.skip_default_addons_import()
    assert sys.modules["mitmproxy.addons"] is before


def test_the_parser_reads_the_command_line_the_launcher_writes(tmp_path: Path):
    argv = mitmdump_argv(tmp_path / "r.sqlite", "http://127.0.0.1:8123/mcp", marker="m")
    own = argv[argv.index("-q") :]  # after the interpreter, the entry point and serve's own three arguments
    with taddons.context(*lean_dump.kept_addons(), loadcore=False) as tctx:
        args = lean_dump.parser(tctx.options).parse_args(own)
    assert args.quiet is True and not args.verbose and not args.version
    assert args.mode == ["reverse:http://127.0.0.1:8123@127.0.0.1:0"]
    assert args.scripts == [entry.__file__]
    assert f"backchannel_recording={tmp_path / 'r.sqlite'}" in args.setoptions
    assert "connection_strategy=lazy" in args.setoptions
