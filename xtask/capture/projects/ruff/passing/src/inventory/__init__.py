"""A small inventory of items and their stock."""
