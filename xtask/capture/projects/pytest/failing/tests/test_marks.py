import sys

import pytest


@pytest.mark.skip(reason="not implemented yet")
def test_skipped():
    assert False


@pytest.mark.skipif(sys.platform.startswith("linux"), reason="not on linux")
def test_skipif():
    assert False


@pytest.mark.xfail(reason="known bug #12")
def test_xfail():
    assert 1 == 2


@pytest.mark.xfail(reason="was a bug, now fixed")
def test_xpass():
    assert 1 == 1


@pytest.mark.xfail(strict=True, reason="strict xfail")
def test_xpass_strict():
    assert True


@pytest.mark.slow
def test_slow_fails():
    assert sum(range(10)) == 40


def test_passes():
    assert True
