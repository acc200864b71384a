import json


def helper(data):
    return data["missing"]


def test_key_error():
    helper({"present": 1})


def test_type_error():
    len(5)


def test_zero_division():
    assert 1 / 0 == 0


def test_json():
    json.loads("{not json}")


def test_attribute():
    None.strip()


def test_nested_calls():
    def inner():
        raise RuntimeError("deep failure in inner")

    def outer():
        inner()

    outer()
