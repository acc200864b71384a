import pytest


class Inventory:
    def __init__(self):
        self.stock = {"apple": 3}

    def take(self, name, n):
        if self.stock.get(name, 0) < n:
            raise LookupError(f"not enough {name}: have {self.stock.get(name, 0)}, need {n}")
        self.stock[name] -= n


@pytest.fixture
def inventory():
    return Inventory()


class TestInventory:
    def test_take(self, inventory):
        inventory.take("apple", 1)
        assert inventory.stock["apple"] == 1

    def test_take_too_many(self, inventory):
        inventory.take("apple", 5)

    def test_take_unknown(self, inventory):
        inventory.take("kiwi", 1)

    class TestNested:
        def test_deep(self):
            assert [] == [0]

    @pytest.mark.parametrize("n", [1, 2, 3])
    def test_param_in_class(self, inventory, n):
        inventory.take("apple", n)
        assert inventory.stock["apple"] == 3 - n - 1
