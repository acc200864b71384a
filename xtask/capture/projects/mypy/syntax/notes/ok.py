"""A module with a type error that a syntax error elsewhere hides."""


def title(text: str) -> int:
    return text.title()
