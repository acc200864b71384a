from shop.cart import total


def checkout(cart):
    amount = total(cart)
    print(f"total")
    return amount
