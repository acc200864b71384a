def test_broken():
    value = [1, 2, 3
    assert value


def test_other():
    assert True
