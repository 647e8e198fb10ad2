"""The TypeScript SDK v2 driver's `--sampling-reply TEXT`, held to the same behaviour as the Python driver's."""

from __future__ import annotations

from tests.proxy.clients.drivers.test_py_sdk_sampling import (
    REPLY,
    assert_declares_no_sampling_by_default,
    assert_samples_with_the_stand_in,
    drive,
    url,
)
from tests.proxy.clients.drivers.test_ts_sdk import ts_driver

__all__ = ["url"]  # the endpoint fixture, one per era


def test_with_a_stand_in_model_it_declares_sampling_and_answers_after_showing_the_request(url):
    assert_samples_with_the_stand_in(drive([*ts_driver(), "--mode", "auto"], url, "--sampling-reply", REPLY))


def test_without_the_flag_it_declares_no_sampling(url):
    assert_declares_no_sampling_by_default(drive([*ts_driver(), "--mode", "auto"], url))
