"""Cart arithmetic."""


def total(items):
    """The sum of price times quantity.

    >>> total([(2, 3)])
    6
    """
    return sum(price * qty for price, qty in items)
