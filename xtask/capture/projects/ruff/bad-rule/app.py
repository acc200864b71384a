"""Never linted: the rule selection is invalid."""

VALUE = 1
