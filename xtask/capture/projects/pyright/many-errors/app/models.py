"""A model with a few mistakes."""

from dataclasses import dataclass


@dataclass
class User:
    name: str
    age: int

    def greeting(self) -> str:
        return "hello " + self.age

    def birthday(self) -> int:
        self.age += "1"
        return self.agee


def find(users: list[User], name: str) -> User:
    for user in users:
        if user.name == name:
            return user
