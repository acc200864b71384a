import warnings

import pytest


def test_uses_database(database):
    assert database is not None


def test_also_uses_database(database):
    assert database


def test_leaky_teardown(leaky):
    assert leaky == 1


def test_unknown_fixture(no_such_fixture):
    assert no_such_fixture


def test_warns():
    warnings.warn("this API is deprecated", DeprecationWarning)
    assert True


def test_fail_call():
    pytest.fail("explicit failure with a reason")
