"""Uses the helpers."""

from app.math import add, mean


def run() -> str:
    total = add(2, 3)
    return f"{total} {mean([1.0, 2.0])}"
