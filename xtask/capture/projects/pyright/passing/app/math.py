"""Small arithmetic helpers."""


def add(a: int, b: int) -> int:
    return a + b


def mean(values: list[float]) -> float:
    if not values:
        return 0.0
    return sum(values) / len(values)
