from shop.cart import Cart


def header(title: str) -> str:
    return title.upper()


def lines(cart: Cart) -> list[str]:
    return [f"{k}: {v}" for k, v in cart.items.items()]


def render(cart: Cart) -> str:
    return header(1) + "\n".join(lines(cart))


def width(cart: Cart) -> int:
    return max(len(line) for line in lines(cart)) + "2"


def footer(count: int) -> str:
    return count
