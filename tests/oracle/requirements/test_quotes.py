"""A quote matches its section verbatim but for whitespace and markdown emphasis; `[...]` elides a short gap."""

from backchannel.oracle.requirements.quotes import normalise, quote_found, schema_section, section, slug

PAGE = """# Page

## User Interaction Model

MCP clients **MUST**:

- Provide UI that makes it clear which server is requesting information
- Respect user privacy

```python
# not a heading
```

### Nested `detail`

The client **MUST NOT** include one in the _retry_.

## Next Section

Clients **MUST** echo `requestState`.
"""


def test_emphasis_and_whitespace_are_normalised_but_code_spans_keep_their_underscores():
    assert normalise("the  **MUST**\n_not_ `_meta` and `a_b_`") == "the MUST not `_meta` and `a_b_`"


def test_a_quote_matches_across_emphasis_and_line_breaks_but_not_with_one_word_changed():
    assert quote_found("The client MUST NOT include one in the retry.", PAGE)
    assert not quote_found("The client MUST NOT include two in the retry.", PAGE)


def test_an_elision_bridges_a_list_lead_in_and_its_item_but_not_a_gap_longer_than_allowed():
    assert quote_found("MCP clients MUST: [...] Respect user privacy", PAGE)
    assert not quote_found("Respect user privacy [...] MCP clients MUST:", PAGE)  # out of order
    far = "Start here. " + "x" * 500 + " End here."
    assert not quote_found("Start here. [...] End here.", far)
    assert quote_found("Start here. [...] End here.", "Start here. " + "x" * 300 + " End here.")


def test_a_section_runs_to_the_next_heading_of_its_level_and_ignores_hashes_in_fenced_code():
    under = section(PAGE, "user-interaction-model")
    assert under is not None and "not a heading" in under and "include one in" in under
    assert "echo" not in under
    assert section(PAGE, "nested-detail") is not None
    assert section(PAGE, "not-a-heading") is None
    assert section(PAGE, "missing") is None


def test_slugs_are_lowercase_hyphenated_without_code_marks_or_punctuation():
    assert slug("Client Requirements (Basic Workflow)") == "client-requirements-basic-workflow"
    assert slug("`_meta`") == "_meta"
    assert slug("Tools in Sampling") == "tools-in-sampling"


def test_a_schema_section_is_every_description_in_the_definition_its_lowercased_name_names():
    schema = {"$defs": {"Result": {"description": "Common.", "properties": {"x": {"description": "MUST be."}}}}}
    text = schema_section(schema, "result")
    assert text is not None and quote_found("MUST be.", text) and quote_found("Common.", text)
    assert schema_section(schema, "other") is None
