"""Runs the examples in shop.mathx's docstrings as tests, through unittest's load_tests."""

import doctest

from shop import mathx


def load_tests(loader, tests, ignore):
    tests.addTests(doctest.DocTestSuite(mathx))
    return tests
