import os
import sys
import json
from shop.prices import price_of


def add(cart, item, count=1):
    previous = cart.get(item)
    if previous == None:
        cart[item] = count
    else:
        cart[item] = previous + count
    return cart


def total(cart):
    unused = 0
    return sum(price_of(item) * count for item, count in cart.items()) + discount
