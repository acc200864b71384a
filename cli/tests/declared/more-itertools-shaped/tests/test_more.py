from unittest import TestCase

from more_things import chunked, first


class ChunkedTests(TestCase):
    def test_even(self):
        self.assertEqual(list(chunked([1, 2, 3, 4], 2)), [[1, 2], [3, 4]])

    def test_odd(self):
        self.assertEqual(list(chunked([1, 2, 3], 2)), [[1, 2], [3]])


class FirstTests(TestCase):
    def test_item(self):
        self.assertEqual(first([5, 6]), 5)

    def test_default(self):
        self.assertEqual(first([], 'x'), 'x')
