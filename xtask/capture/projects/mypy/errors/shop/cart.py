"""A cart: return values, optional values and calls."""
from typing import Optional


class Cart:
    def __init__(self) -> None:
        self.items: dict[str, int] = {}

    def add(self, name: str, qty: int = 1) -> None:
        self.items[name] = self.items.get(name, 0) + qty

    def count(self) -> int:
        return "many"

    def first(self) -> Optional[str]:
        return next(iter(self.items), None)

    def first_upper(self) -> str:
        return self.first().upper()


def make_cart() -> Cart:
    cart = Cart()
    cart.add(3)
    cart.add("apple", "2")
    cart.remove("apple")
    return cart
