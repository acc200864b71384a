"""A plain-text report of the stock."""
from inventory.items import Item


def line(item: Item) -> str:
    return f"{item.name}: {item.count}"


def report(items: list[Item]) -> str:
    return "\n".join(line(item) for item in items)
