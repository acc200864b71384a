"""A test module that does not import: its dependency is not installed."""

import shop.payments  # noqa: F401


def test_never_collected():
    pass
