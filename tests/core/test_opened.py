"""core.device.opened: one way for a measure to take its GPU, a Device borrowed or an ordinal opened and closed."""
import pytest


def test_a_device_is_borrowed_and_left_open(fake_driver):
    from cugraphlab.core.device import Device, opened

    with Device(0) as dev:
        with opened(dev) as got:
            assert got is dev
        assert not dev.closed
        with pytest.raises(RuntimeError), opened(dev):
            raise RuntimeError("the block failed")
        assert not dev.closed


def test_an_ordinal_is_opened_for_the_block_and_closed_however_it_ends(fake_driver):
    from cugraphlab.core.device import Device, opened

    with opened(0) as dev:
        assert isinstance(dev, Device) and dev.ordinal == 0 and not dev.closed
    assert dev.closed
    with pytest.raises(RuntimeError, match="failed"):
        with opened(0) as dev:
            raise RuntimeError("the block failed")
    assert dev.closed


def test_a_bad_ordinal_is_one_error_before_the_block(fake_driver):
    from cugraphlab.core.device import opened
    from cugraphlab.core.errors import InvalidArgumentError, NoDeviceError

    ran = []
    with pytest.raises(InvalidArgumentError, match="device index"):
        with opened(-1):
            ran.append(1)
    with pytest.raises(NoDeviceError, match="there is no CUDA device 7"):
        with opened(7):
            ran.append(1)
    assert ran == []
