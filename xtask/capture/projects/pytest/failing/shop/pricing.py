"""Prices and discounts."""


def discount(price, percent):
    return round(price * (1 - percent / 100), 2)


def tax(price):
    return price * 0.2


def parse_price(text):
    return float(text.strip("$"))
