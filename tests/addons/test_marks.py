"""A flow backchannel changed is marked for mitmweb, with a comment saying which mutations applied and how."""

from mitmproxy.test import tflow

from backchannel.addons import marks
from backchannel.addons.mutations.drop_result_type import DropResultTypeRecord
from backchannel.addons.mutations.hold import HoldRecord
from backchannel.addons.mutations.inject_input_requests import InjectDecisionRecord, InjectInputRequestsRecord
from backchannel.recordings.mutation_records import UnknownMutationRecord


def test_a_changed_flow_is_marked_and_its_comment_names_each_mutation_and_what_it_did():
    flow = tflow.tflow(resp=True)
    marks.mark(
        flow,
        [
            DropResultTypeRecord(index=0, removed='"resultType":"complete"', start=5, end=29),
            HoldRecord(index=1, as_="json", ms=5000),
        ],
    )
    assert flow.marked == marks.MARKER
    assert flow.comment == (
        "backchannel: drop-result-type: changed the result"
        ' (removed="\\"resultType\\":\\"complete\\"", start=5, end=29); hold: changed the delivery (as="json", ms=5000)'
    )


def test_a_flow_where_only_decisions_were_taken_is_left_unmarked():
    flow = tflow.tflow(resp=True)
    marks.mark(
        flow, [InjectDecisionRecord(index=0, protocol_version="2026-07-28", chosen=None, reason="no capability")]
    )
    assert flow.marked == "" and flow.comment == ""


def test_long_members_such_as_a_minted_request_state_are_left_out_of_the_comment():
    flow = tflow.tflow(resp=True)
    marks.mark(flow, [InjectInputRequestsRecord(index=0, request_state="x" * 200)])
    assert flow.comment == "backchannel: inject-input-requests: changed the result"


def test_a_record_this_version_cannot_read_is_still_described_by_the_kind_it_claims():
    flow = tflow.tflow(resp=True)
    marks.mark(
        flow,
        [UnknownMutationRecord(kind="future-kind", raw={"kind": "future-kind"}), HoldRecord(index=0, as_="sse", ms=10)],
    )
    assert flow.comment.startswith("backchannel: future-kind: decided;")
