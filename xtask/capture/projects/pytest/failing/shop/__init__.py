"""A small shop whose tests fail."""
