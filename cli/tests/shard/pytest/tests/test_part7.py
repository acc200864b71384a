def add(a, b):
    return a + b


def test_adds():
    assert add(7, 1) == 8


def test_multiplies():
    assert 7 * 2 == 14
