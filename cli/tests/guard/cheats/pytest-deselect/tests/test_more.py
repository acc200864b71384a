def test_more():
    assert True
