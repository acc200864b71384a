"""Prices: overloads, operators and a revealed type."""


def discount(price: float, percent: int) -> float:
    return price * (1 - percent / 100)


def label(price: float) -> str:
    return "$" + price


def rounded(price: str) -> int:
    return int(price, base="ten")


reveal_type(discount)
discount("10", 5)
total = discount(10.0, 5) + undefined_bonus
