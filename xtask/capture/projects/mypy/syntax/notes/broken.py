"""A module that does not parse."""


def shout(text: str) -> str
    return text.upper()
