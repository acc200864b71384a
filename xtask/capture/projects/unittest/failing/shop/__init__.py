"""A small shop whose code has bugs for the tests to find."""
