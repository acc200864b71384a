"""A module without type errors."""


def double(x: int) -> int:
    return x * 2
