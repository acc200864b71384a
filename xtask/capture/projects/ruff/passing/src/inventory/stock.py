"""Stock levels of items."""

from dataclasses import dataclass


@dataclass
class Item:
    """One item and how many are in stock."""

    name: str
    count: int

    def restock(self, amount: int) -> "Item":
        """The same item with `amount` more in stock."""
        return Item(self.name, self.count + amount)


def total(items: list[Item]) -> int:
    """How many items are in stock altogether."""
    return sum(item.count for item in items)
