"""A fixture of verdict's declared-command tests."""


def mean(values):
    """The arithmetic mean.

    >>> mean([1, 2, 3])
    2.0
    >>> mean([4])
    4.0
    """
    return sum(values) / len(values)
