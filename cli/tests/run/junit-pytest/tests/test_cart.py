import pytest


@pytest.fixture
def db():
    raise RuntimeError("the database is down")


def test_adds():
    assert 1 + 2 == 4


def test_empties():
    assert len([]) == 0


@pytest.mark.skip(reason="not yet")
def test_discounts():
    assert False


@pytest.mark.xfail(reason="known")
def test_taxes():
    assert False


def test_query(db):
    assert db


@pytest.mark.parametrize("n", [1, 2, 3])
def test_positive(n):
    assert n > 0


class TestTotals:
    def test_total(self):
        assert 2 * 2 == 4
