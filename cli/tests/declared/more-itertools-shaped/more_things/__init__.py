from .more import chunked, first

__all__ = ['chunked', 'first']
