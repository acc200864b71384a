"""A module mypy cannot parse."""


def area(width: int, height: int) -> int:
    return width * height


def broken(x: int) -> int
    return x
