def pytest_collection_modifyitems(session, config, items):
    raise RuntimeError("plugin exploded while reordering tests")
