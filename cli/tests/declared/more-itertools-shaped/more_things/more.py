def chunked(iterable, n):
    """Break *iterable* into lists of length *n*."""
    chunk = []
    for item in iterable:
        chunk.append(item)
        if len(chunk) == n:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def first(iterable, default=None):
    """Return the first item of *iterable*, or *default*."""
    for item in iterable:
        return item
    return default
