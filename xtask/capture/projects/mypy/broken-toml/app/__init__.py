"""An app whose mypy configuration is not valid TOML."""


def greet(name):
    return "hello " + name
