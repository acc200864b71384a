"""Sums over rows."""


class rowSummary:
    """The sum and count of numeric rows."""

    def __init__(self, rows):
        self.values = list([float(row) for row in rows])

    def Total(self):
        """The sum of the rows."""
        result = sum(self.values)
        return result

    def any_negative(self):
        """Whether some row is negative."""
        for value in self.values:
            if value < 0:
                return True
        return False
