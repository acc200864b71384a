import pytest

from shop.pricing import discount, parse_price, tax


@pytest.mark.parametrize(
    "price,percent,expected",
    [(100, 10, 90.0), (50, 50, 25.0), (10, 15, 8.0), (19.99, 0, 20)],
)
def test_discount(price, percent, expected):
    assert discount(price, percent) == expected


@pytest.mark.parametrize("text", ["$3.50", "4", "$abc", "1,000"])
def test_parse_price(text):
    assert parse_price(text) > 0


def test_tax():
    assert tax(10) == 2


def test_tax_float():
    assert tax(0.1) == 0.02


def test_approx():
    assert tax(1.0) == pytest.approx(0.25)
