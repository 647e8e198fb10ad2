import os
import signal

import pytest

from backchannel.proxy.run.guard import Interrupted, RecordingLock, interruptible, interruption, is_locked, shielded


def test_sigterm_inside_the_block_raises_interrupted_and_the_old_handler_comes_back():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as caught, interruptible():
        os.kill(os.getpid(), signal.SIGTERM)
    assert caught.value.signum == signal.SIGTERM
    assert "SIGTERM" in (interruption(caught.value) or "")
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_shielded_block_ignores_a_second_signal():
    with interruptible(), shielded():
        os.kill(os.getpid(), signal.SIGHUP)  # no exception: the recording is being finalised


def test_only_interruptions_are_named():
    assert interruption(None) is None
    assert interruption(ValueError("x")) is None
    assert "SIGINT" in (interruption(KeyboardInterrupt()) or "")


def test_a_locked_recording_reads_as_locked_until_released(tmp_path):
    path = tmp_path / "r.sqlite"
    path.write_bytes(b"")
    lock = RecordingLock(path)
    assert is_locked(path)
    with pytest.raises(OSError):
        RecordingLock(path)
    lock.release()
    assert not is_locked(path)
    assert not is_locked(tmp_path / "missing.sqlite")
