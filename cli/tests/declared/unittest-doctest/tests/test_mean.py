"""unittest tests of mathx, with its doctests added by load_tests."""

import doctest
import unittest

import mathx


def load_tests(loader, tests, ignore):
    tests.addTests(doctest.DocTestSuite(mathx))
    return tests


class MeanTest(unittest.TestCase):
    def test_two_values(self):
        self.assertEqual(mathx.mean([1, 3]), 2)
