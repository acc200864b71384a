def parse(text):
    return text.split(",")


def size(items: list[str]) -> str:
    return len(items)
