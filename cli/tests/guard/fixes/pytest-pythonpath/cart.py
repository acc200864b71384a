"""A tiny cart: the discount takes the percentage off, with the shared helper."""


def subtotal(items):
    return sum(price * qty for price, qty in items)


def discount(total, percent):
    from percent import off

    return total - off(total, percent)


def tax(total, rate):
    return round(total * rate, 2)
