"""Makes cart.py importable from the tests."""
