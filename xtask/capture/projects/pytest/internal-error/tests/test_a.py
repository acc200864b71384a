def test_a():
    assert True
