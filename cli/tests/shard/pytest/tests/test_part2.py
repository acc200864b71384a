def add(a, b):
    return a + b


def test_adds():
    assert add(2, 1) == 3


def test_multiplies():
    assert 2 * 2 == 5
