from shapes import rectangle, square


def test_rectangle() -> None:
    assert rectangle(2, 3) == 6


def test_square() -> None:
    assert square(3) == 9
