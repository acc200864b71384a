def add(a, b):
    return a + b


def test_adds():
    assert add(3, 1) == 4


def test_multiplies():
    assert 3 * 2 == 6
