from shapes.area import rectangle, square

__all__ = ["rectangle", "square"]
