"""Cart arithmetic."""


def total(items):
    """The sum of price times quantity."""
    return sum(price * qty for price, qty in items)


def discount(amount, percent):
    # Bug: the percentage is subtracted as an amount.
    return amount - percent


def parse_qty(text):
    return int(text)


def lookup(prices, sku):
    return prices[sku]
