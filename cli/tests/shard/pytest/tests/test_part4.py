def add(a, b):
    return a + b


def test_adds():
    assert add(4, 1) == 5


def test_multiplies():
    assert 4 * 2 == 8
