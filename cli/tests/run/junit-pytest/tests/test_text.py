def test_upper():
    assert "a".upper() == "A"


def test_lower():
    assert "A".lower() == "b"
