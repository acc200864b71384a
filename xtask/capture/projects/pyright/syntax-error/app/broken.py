"""Does not parse."""


def total(values: list[int]) -> int
    result = 0
    for value in values:
        result += value
    return result


class Config(
    name: str
