"""Items and their stock."""
from dataclasses import dataclass


@dataclass
class Item:
    name: str
    count: int

    def restock(self, extra: int) -> "Item":
        return Item(self.name, self.count + extra)
