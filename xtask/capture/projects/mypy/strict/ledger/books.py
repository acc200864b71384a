"""Entries and balances, partly annotated."""
import json
from typing import Any


def load(path):
    with open(path) as f:
        return json.load(f)


def balance(entries: list) -> float:
    return sum(e["amount"] for e in entries)


def parse(text: str) -> dict[str, int]:
    data: Any = json.loads(text)
    return data["totals"]


class Account:
    def __init__(self, name):
        self.name = name

    def summary(self) -> str:
        return describe(self)


def describe(account):
    return account.name
