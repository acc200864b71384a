def join(values: list[str], sep: str = ",") -> str:
    return sep.join(values)


def clamp(value: int, low: int, high: int) -> int:
    return min(max(value, low), high)


def ratio(a: int, b: int) -> int:
    return a / b


def parse(text: str) -> int:
    return text


join([1, 2, 3])
clamp("1", 2, 3)
undefined_name + 1
