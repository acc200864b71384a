"""Shopping cart."""


class Cart:
    def __init__(self):
        self.items = {}

    def add(self, name, price, qty=1):
        if qty <= 0:
            raise ValueError(f"quantity must be positive, got {qty}")
        self.items[name] = (price, self.items.get(name, (price, 0))[1] + qty)

    def total(self):
        # Bug: ignores quantities.
        return sum(price for price, _ in self.items.values())

    def count(self):
        return len(self.items)
