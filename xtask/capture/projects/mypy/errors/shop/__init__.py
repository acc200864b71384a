"""A shop whose modules have type errors of several kinds."""
