from prices.vat import vat_of, with_vat


def test_with_vat():
    assert with_vat(10.0) == 12.0


def test_vat_of_gross_amount():
    assert vat_of(12.0) == 2.0


def test_zero_rate():
    assert with_vat(5.0, rate=0.0) == 5.0
