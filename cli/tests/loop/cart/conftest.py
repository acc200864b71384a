"""Makes the cart project a pytest project, and cart.py importable from its tests."""
