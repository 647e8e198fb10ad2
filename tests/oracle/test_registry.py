import pytest

from backchannel.oracle import all_checks
from backchannel.oracle.registry import check


def test_every_shipped_check_is_found_without_a_central_list():
    assert {
        "mrtr-provenance-input-requests",
        "mrtr-provenance-result-type-default",
        "elicitation-names-requesting-server",
    } <= set(all_checks())


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"id": "Not Kebab"}, "kebab-case"),
        ({"level": "OPTIONAL"}, "MUST, SHOULD or MAY"),
        ({"spec": "spec.md"}, "not a URL"),
    ],
)
def test_a_malformed_check_is_refused_at_registration(kwargs, words):
    args = {"id": "x-check", "scenario": "s", "level": "MUST", "spec": "https://example.test", "title": "t"} | kwargs

    def judge(rec):
        """Doc."""
        return iter(())

    with pytest.raises(ValueError, match=words):
        check(args.pop("id"), **args)(judge)


def test_registering_an_id_twice_is_refused():
    existing = next(iter(all_checks()))

    def judge(rec):
        """Doc."""
        return iter(())

    with pytest.raises(ValueError, match="already registered"):
        check(existing, scenario="s", level="MUST", spec="https://example.test", title="t")(judge)


def test_a_check_without_a_docstring_is_refused():
    with pytest.raises(ValueError, match="docstring"):
        check("doc-less", scenario="s", level="MUST", spec="https://example.test", title="t")(lambda rec: iter(()))
