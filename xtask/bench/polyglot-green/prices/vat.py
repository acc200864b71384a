"""VAT arithmetic for the example shop."""


def with_vat(net: float, rate: float = 0.2) -> float:
    return round(net * (1 + rate), 2)


def vat_of(gross: float, rate: float = 0.2) -> float:
    return round(gross - gross / (1 + rate), 2)
