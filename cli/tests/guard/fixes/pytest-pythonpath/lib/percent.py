"""Percentages, shared with the other tools of the shop."""


def off(total, percent):
    return total * percent / 100
