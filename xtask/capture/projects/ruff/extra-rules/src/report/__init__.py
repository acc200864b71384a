"""Reports over rows of numbers."""
