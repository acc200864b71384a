import pytest

from shop.cart import Cart


@pytest.fixture
def cart():
    return Cart()


@pytest.fixture
def full_cart():
    c = Cart()
    c.add("apple", 1.0, 3)
    c.add("pear", 2.0)
    return c


@pytest.fixture
def database():
    raise ConnectionError("could not connect to database at localhost:5432")


@pytest.fixture
def leaky():
    yield 1
    raise RuntimeError("teardown failed: 2 handles still open")
