"""Badly formatted but lint-clean."""


def area( width,height ):
    return width*height


PRICES = { 'apple':3,
    'pear':4 }
