"""The shared mirroring judgment, on a reference where every kind of parameter is judged, and on one where none is."""

from backchannel.oracle.scenarios.conformance.mirroring import judge_mirrored
from backchannel.oracle.scenarios.conformance.param_headers import BASE64, ENCODE, MIRRORS
from tests.oracle.reference import recording


def test_the_three_checks_split_the_annotated_parameters_between_them():
    rec = recording("conformance-toy")
    counts = [judge_mirrored(rec, check, "x").message.split()[0] for check in (MIRRORS, ENCODE, BASE64)]
    assert counts == ["6", "4", "7"]


def test_a_missing_header_outweighs_a_stray_one():
    flawed = judge_mirrored(recording("conformance-toy-flawed"), MIRRORS, "x")
    assert flawed.status == "FAIL"  # the missing EmptyVal outweighs the stray Mcp-Param-Query and -Floatval
