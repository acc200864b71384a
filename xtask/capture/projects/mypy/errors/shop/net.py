"""Network access: missing modules and an unused ignore."""
import requests_nope
from shop.settingz import TIMEOUT


def fetch(url: str) -> str:
    return requests_nope.get(url, timeout=TIMEOUT).text


def status(url: str) -> int:
    code: int = 200  # type: ignore[assignment]
    return code
