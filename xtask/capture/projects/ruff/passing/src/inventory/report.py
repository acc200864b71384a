"""A one-line report of the stock."""

from inventory.stock import Item, total


def report(items: list[Item]) -> str:
    """One line per item, then the total."""
    lines = [f"{item.name}: {item.count}" for item in items]
    lines.append(f"total: {total(items)}")
    return "\n".join(lines)
