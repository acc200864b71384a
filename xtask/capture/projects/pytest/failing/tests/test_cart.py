import pytest

from shop.cart import Cart


def test_empty_total(cart):
    assert cart.total() == 0


def test_total_counts_quantity(full_cart):
    assert full_cart.total() == 5.0


def test_count(full_cart):
    assert full_cart.count() == 4


def test_add_negative(cart):
    cart.add("apple", 1.0, -1)


def test_add_zero_raises(cart):
    with pytest.raises(ValueError):
        cart.add("apple", 1.0, 0)


def test_items_dict(full_cart):
    assert full_cart.items == {"apple": (1.0, 3), "pear": (2.0, 2)}


def test_names(full_cart):
    assert sorted(full_cart.items) == ["apple", "banana", "pear"]


class TestCartClass:
    def test_new_cart_is_empty(self):
        assert Cart().count() == 0

    def test_total_after_add(self):
        c = Cart()
        c.add("x", 3.0, 2)
        assert c.total() == 6.0

    def test_repr(self):
        assert "Cart" in str(Cart().items)
