"""A small, well-typed inventory."""
