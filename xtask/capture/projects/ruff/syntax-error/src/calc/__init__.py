"""A calculator."""
