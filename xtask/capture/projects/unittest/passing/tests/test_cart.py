import doctest
import unittest

from shop import cart


def load_tests(loader, tests, ignore):
    tests.addTests(doctest.DocTestSuite(cart))
    return tests


class TotalTest(unittest.TestCase):
    def test_empty(self):
        self.assertEqual(cart.total([]), 0)

    def test_two_items(self):
        self.assertEqual(cart.total([(2, 3), (1, 1)]), 7)

    @unittest.skip("pricing service not available")
    def test_remote_prices(self):
        self.fail("never runs")

    @unittest.expectedFailure
    def test_rounding(self):
        self.assertEqual(round(2.675, 2), 2.68)
