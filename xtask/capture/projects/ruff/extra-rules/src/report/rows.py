"""Rows read from a file."""

import os
from typing import List, Optional


def read_rows(path: str, seen: list = []) -> List[str]:
    """The lines of the file at `path`."""
    if os.path.exists(path):
        with open(path) as handle:
            return handle.read().splitlines()
    else:
        return seen


def first(rows: List[str]) -> Optional[str]:
    """The first row, or None."""
    if len(rows) > 0:
        return rows[0]
    else:
        return None
