"""Long call."""

from a import area

TOTAL = area(1, 2) + area(3, 4) + area(5, 6) + area(7, 8) + area(9, 10) + area(11, 12) + area(13, 14)
