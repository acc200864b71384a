import unittest


class MoreTest(unittest.TestCase):
    def test_more(self):
        self.assertTrue(True)
