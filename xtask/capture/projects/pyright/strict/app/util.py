"""Untyped code that strict mode rejects."""

import os
import sys


def parse(text):
    return [part.strip() for part in text.split(",")]


def total(values: list) -> int:
    result = 0
    for value in values:
        result += value
    return result


def _helper() -> None:
    pass
