"""An app whose mypy configuration names a plugin that is not installed."""


def greet(name: str) -> str:
    return "hello " + name
