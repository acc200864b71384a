"""A tiny cart: the discount takes the percentage off."""


def subtotal(items):
    return sum(price * qty for price, qty in items)


def discount(total, percent):
    return total - total * percent / 100


def tax(total, rate):
    return round(total * rate, 2)
