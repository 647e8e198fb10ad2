"""sampling-names-requesting-server, judged on committed references: the fence names the server, in each era."""

import pytest

from tests.oracle.reference import results

CHECK = "sampling-names-requesting-server"


@pytest.mark.parametrize(
    "name",
    ["sampling-toy-careful", "sampling-toy-careful-2025-06-18", "sampling-py-sdk-reply", "sampling-ts-sdk-reply"],
)
def test_it_passes_clients_that_show_the_server_name_before_the_request(name):
    result = results(name)[CHECK]
    assert result.status == "PASS" and "names the requesting server" in result.message
    assert all(e.kind == "terminal" and e.note == "server named" for e in result.evidence)


@pytest.mark.parametrize("era", ["", "-2025-11-25"])
def test_it_warns_when_the_fence_names_no_server(era):
    result = results(f"sampling-toy-no-server-name{era}")[CHECK]
    assert result.status == "WARN" and "name no server" in result.message
    assert result.evidence[0].note == "no server name or origin before it"


def test_it_skips_a_client_that_never_showed_a_request():
    assert results("sampling-py-sdk")[CHECK].reason == "not-shown"
