def add(a, b):
    return a + b


def test_adds():
    assert add(6, 1) == 7


def test_multiplies():
    assert 6 * 2 == 12
