from cart import discount, subtotal, tax


def test_subtotal():
    assert subtotal([(2.5, 2), (1.0, 3)]) == 8.0


def test_discount():
    assert discount(200, 10) == 180


def test_tax():
    assert tax(100, 0.2) == 20.0


def test_empty():
    assert subtotal([]) == 0


def test_discount_in_cents():
    from helpers import cents

    assert cents(discount(19.99, 10)) == 1799
