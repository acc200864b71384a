"""A helper the fix's new test uses: an amount in cents."""


def cents(amount):
    return round(amount * 100)
