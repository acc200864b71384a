CONFIG = {"retries": 3}
TIMEOUT = CONFIG["timeout"]


def test_timeout():
    assert TIMEOUT > 0
