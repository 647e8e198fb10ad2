"""requirements.toml is read strictly: each mistake is an error naming the file and the key, never a guess."""

import pytest

from backchannel.oracle.requirements import REQUIREMENTS_FILE, RequirementsError, load_requirements, parse_requirements

ANCHOR = "https://modelcontextprotocol.io/specification/2026-07-28/client/elicitation#capabilities"
HEAD = f"""
[suite]
"0.2.0-alpha.12" = ["sep-2322-client-jsonrpc-id-different"]

[aisvs]
version = "1.0"
source = "https://example.org/aisvs"

[aisvs.requirements]
"C9.2.1" = "Verify that the agent runtime blocks execution."

[checks]

[[not_checked]]
quote = "Servers MUST bind elicitation requests"
anchor = "{ANCHOR}"
reason = "server-internal"
"""


def parsed(entry: str, head: str = HEAD):
    return parse_requirements(head + entry, "reqs.toml")


def refused(entry: str, head: str = HEAD) -> str:
    with pytest.raises(RequirementsError) as caught:
        parsed(entry, head)
    return str(caught.value)


def test_the_shipped_file_loads_with_a_quote_and_anchor_or_a_reason_for_every_entry():
    requirements = load_requirements()
    assert requirements.source == REQUIREMENTS_FILE
    assert len(requirements.entries) >= 68
    for entry in requirements.entries.values():
        assert (entry.quote is not None and entry.anchor is not None) != (entry.unquoted is not None), entry.check_id
    assert requirements.not_checked and all(item.reason for item in requirements.not_checked)
    assert list(requirements.entries) == sorted(requirements.entries)  # in id order: a new entry has one place


def test_an_entry_reads_its_quote_anchor_suite_ids_with_their_release_aisvs_texts_and_note():
    entry = parsed(
        f'[checks.x-y]\nquote = "Q"\nanchor = "{ANCHOR}"\nsuite = ["sep-2322-client-jsonrpc-id-different"]\n'
        'aisvs = ["C9.2.1"]\nnote = "N"\n'
    ).entries["x-y"]
    assert (entry.quote, entry.anchor, entry.unquoted, entry.note) == ("Q", ANCHOR, None, "N")
    assert [(s.id, s.release) for s in entry.suite] == [("sep-2322-client-jsonrpc-id-different", "0.2.0-alpha.12")]
    assert [(a.id, a.text) for a in entry.aisvs] == [("C9.2.1", "Verify that the agent runtime blocks execution.")]


def test_an_unknown_key_is_named_with_its_table_and_the_file():
    assert refused(f'[checks.x-y]\nqoute = "Q"\nanchor = "{ANCHOR}"\n') == (
        "reqs.toml: [checks.x-y] unknown key 'qoute' (known: aisvs, anchor, note, quote, suite, unquoted)"
    )


def test_an_entry_without_quote_and_anchor_or_unquoted_is_refused():
    assert "[checks.x-y] needs quote and anchor" in refused(f'[checks.x-y]\nanchor = "{ANCHOR}"\n')
    assert "[checks.x-y] needs quote and anchor" in refused("[checks.x-y]\n")


def test_unquoted_beside_a_quote_is_refused():
    assert "has unquoted and a quote" in refused('[checks.x-y]\nunquoted = "why"\nquote = "Q"\n')


def test_a_suite_id_listed_under_no_release_and_an_aisvs_id_not_quoted_are_refused():
    message = refused(f'[checks.x-y]\nquote = "Q"\nanchor = "{ANCHOR}"\nsuite = ["sep-9999-nothing"]\n')
    assert message == "reqs.toml: [checks.x-y] suite 'sep-9999-nothing' is listed under no release in [suite]"
    message = refused(f'[checks.x-y]\nquote = "Q"\nanchor = "{ANCHOR}"\naisvs = ["C1.1.1"]\n')
    assert message == "reqs.toml: [checks.x-y] aisvs 'C1.1.1' is not in [aisvs.requirements]"


def test_an_anchor_without_a_fragment_or_off_the_spec_site_is_refused():
    assert "needs a #fragment" in refused(
        '[checks.x-y]\nquote = "Q"\nanchor = "https://modelcontextprotocol.io/specification/2026-07-28/basic"\n'
    )
    assert "does not start with" in refused('[checks.x-y]\nquote = "Q"\nanchor = "https://example.org/#x"\n')


def test_a_missing_top_level_table_and_a_not_checked_row_without_its_reason_are_refused():
    assert refused("", head=HEAD.replace("[aisvs]", "[aisvs_]")).startswith("reqs.toml: the top level unknown key")
    head = HEAD.replace('reason = "server-internal"\n', "")
    assert refused("", head=head) == "reqs.toml: [[not_checked]] #1 is missing 'reason'"


def test_a_suite_id_under_two_releases_and_a_malformed_aisvs_id_are_refused():
    head = HEAD.replace('"0.2.0-alpha.12" = [', '"pr-558" = ["sep-2322-client-jsonrpc-id-different"]\n"x" = [')
    assert "is listed under 'pr-558' and 'x'" in refused("", head=head)
    assert "is not an AISVS id like C9.2.1" in refused("", head=HEAD.replace('"C9.2.1" =', '"9.2.1" ='))


def test_text_that_is_not_toml_is_refused_naming_the_file():
    assert refused("[checks.x-y\n").startswith("reqs.toml: not valid TOML:")
