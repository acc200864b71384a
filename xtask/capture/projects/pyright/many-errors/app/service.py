"""Calls the model wrongly."""

import json
from typing import Optional

import not_a_real_module
from app.models import User, missing_name


def load(raw: str) -> list[User]:
    data = json.loads(raw)
    unused = 3
    return [User(item["name"]) for item in data]


def first_name(user: Optional[User]) -> str:
    return user.name


def count(users: list[User]) -> int:
    if users is None:
        return 0
    return len(users) + "0"


x: int = "three"  # type: ignore
reveal_type(count)
