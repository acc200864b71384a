def slugify(text):
    return text.lower().replace(" ", "-")


def test_slug():
    assert slugify("Hello World") == "hello-world"


def test_slug_punctuation():
    assert slugify("Hello, World!") == "hello-world"


def test_long_string_diff():
    expected = "the quick brown fox jumps over the lazy dog " * 3
    actual = "the quick brown fox jumps over the lazy cat " * 3
    assert actual == expected


def test_list_diff():
    assert [1, 2, 3, 4] == [1, 2, 4, 4]


def test_dict_diff():
    assert {"a": 1, "b": 2, "c": 3} == {"a": 1, "b": 3, "d": 4}


def test_in():
    assert "needle" in "haystack"


def test_message():
    value = 7
    assert value % 2 == 0, f"expected an even number, got {value}"
