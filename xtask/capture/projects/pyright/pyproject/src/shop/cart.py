"""A cart."""

from typing import Optional

import requests_not_installed


class Cart:
    def __init__(self) -> None:
        self.items: dict[str, int] = {}

    def add(self, sku: str, quantity: int = 1) -> None:
        self.items[sku] = self.items.get(sku, 0) + quantity

    def total(self, prices: dict[str, float]) -> float:
        return sum(prices[sku] * n for sku, n in self.items.items())


def discount(cart: Optional[Cart]) -> int:
    return len(cart.items)


def checkout(cart: Cart) -> str:
    return cart.total({"a": 1.0}).upper()
