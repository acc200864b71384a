import pytest


def test_add():
    assert 1 + 1 == 2


@pytest.mark.parametrize("n", [1, 2, 3])
def test_square(n):
    assert n * n >= n


@pytest.mark.skip(reason="later")
def test_later():
    pass


class TestStrings:
    def test_upper(self):
        assert "a".upper() == "A"
