"""A small shop with type errors."""
