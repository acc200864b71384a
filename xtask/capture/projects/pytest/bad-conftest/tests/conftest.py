import shop_fixtures  # noqa: F401


def pytest_configure(config):
    pass
