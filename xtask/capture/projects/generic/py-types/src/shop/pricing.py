def discount(price: float, percent: int) -> float:
    return price * (1 - percent / 100)


def tax(price: float) -> float:
    return price * 0.2


def total(prices: list[float]) -> int:
    result: int = sum(prices)
    return result


def label(price: float) -> str:
    return price


discount("10", 5)
tax(price=None)
