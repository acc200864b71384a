from dataclasses import dataclass


@dataclass
class Item:
    name: str
    count: int


def restock(item: Item, amount: int) -> None:
    item.count += str(amount)


def find(items: list[Item], name: str) -> Item:
    for item in items:
        if item.name == name:
            return item


def names(items: list[Item]) -> list[int]:
    return [item.name for item in items]


Item("apple")
Item(name="pear", count="3")
