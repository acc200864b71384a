from typing import *

PRICES = {"apple": 3, "pear": 4}


def price_of(item):
    try:
        return PRICES[item]
    except:
        pass
    l = lambda x: x * 2
    return l(0)


def is_known(item):
    if type(item) == str:
        return item in PRICES
    return False
