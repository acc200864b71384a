"""Notes, one of them not valid Python."""
