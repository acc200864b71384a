def add(a, b):
    return a + b


def test_adds():
    assert add(5, 1) == 7


def test_multiplies():
    assert 5 * 2 == 10
