"""The meta table: a recording is created with typed entries and read back through the same types."""

from backchannel.recordings import load, store
from backchannel.recordings.meta import ProxyStartup, RecordingInfo
from backchannel.recordings.shapes import Discovery, Invocation, ProbeOptions


def test_a_recording_is_created_with_its_info_and_typed_values_and_later_values_replace_earlier_ones(tmp_path):
    info = RecordingInfo(tool_version="1.2", mitmproxy_version="12.3", nonce="n0", created_at=12.34567, scenario="s")
    path = store.create(tmp_path / "r.sqlite", info, [ProbeOptions(client=("c", "{url}"))])
    writer = store.RecordingWriter(path)
    writer.set_meta(ProxyStartup(0.5))
    writer.set_meta(Invocation(argv=("a",)))
    writer.set_meta(Invocation(argv=("b", "{url}")))
    writer.set_meta(Discovery(status="found", invocation=("b", "{url}")))
    writer.flush()
    writer.close()
    rec = load(path)
    assert rec.info == RecordingInfo(
        tool_version="1.2", mitmproxy_version="12.3", nonce="n0", created_at=12.346, scenario="s"
    )
    assert rec.meta["created_at"] == "12.346" and rec.meta["proxy_startup_seconds"] == "0.500"
    assert ProbeOptions.read(rec.meta) == ProbeOptions(client=("c", "{url}"))
    assert Invocation.read(rec.meta) == Invocation(argv=("b", "{url}"))
    assert Discovery.read(rec.meta) == Discovery(status="found", invocation=("b", "{url}"))


def test_info_writes_only_what_it_knows_in_a_fixed_order():
    entries = RecordingInfo(nonce="n", scenario="s").meta_entries()
    assert entries == [("tool", "backchannel"), ("nonce", "n"), ("scenario", "s")]


def test_info_reads_any_meta_table_totally():
    assert RecordingInfo.read({}) == RecordingInfo(tool="")
    assert RecordingInfo.read({"created_at": "soon", "nonce": ""}) == RecordingInfo(tool="", nonce="")
