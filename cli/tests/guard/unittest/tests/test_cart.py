import unittest

from cart import discount, subtotal, tax


class CartTest(unittest.TestCase):
    def test_subtotal(self):
        self.assertEqual(subtotal([(2.5, 2), (1.0, 3)]), 8.0)

    def test_discount(self):
        self.assertEqual(discount(200, 10), 180)

    def test_tax(self):
        self.assertEqual(tax(100, 0.2), 20.0)

    def test_empty(self):
        self.assertEqual(subtotal([]), 0)
