def add(a, b):
    return a + b


def test_adds():
    assert add(1, 1) == 2


def test_multiplies():
    assert 1 * 2 == 2
