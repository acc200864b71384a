"""Helpers documented by examples, which the test suite runs as doctests."""


def double(n):
    """Twice n.

    >>> double(2)
    4
    >>> double(-3)
    -6
    """
    return n * 2


def mean(values):
    """The arithmetic mean.

    >>> mean([1, 2, 3])
    2.0
    >>> mean([1, 2])
    1.0
    """
    return sum(values) / len(values)
