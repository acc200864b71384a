"""Never linted: the configuration cannot be read."""

VALUE = 1
