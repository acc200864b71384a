"""The fixture's tests."""
