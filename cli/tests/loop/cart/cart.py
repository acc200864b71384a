"""A tiny shopping cart: the code the scripted agents of cli/tests/loop.rs fix, or fail to."""


def subtotal(items):
    """The sum of price times quantity over (price, quantity) pairs."""
    return sum(price * qty for price, qty in items)


def discount(total, percent):
    """The total with `percent` taken off."""
    return total + total * percent / 100


def tax(total, rate):
    """The tax on `total` at `rate`, rounded to cents."""
    return round(total * rate, 2)
