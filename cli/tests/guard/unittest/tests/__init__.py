"""The cart's tests, a package unittest discovers."""
