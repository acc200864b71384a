def rectangle(width: float, height: float) -> float:
    return width * height


def square(side: float) -> float:
    return rectangle(side, side)
