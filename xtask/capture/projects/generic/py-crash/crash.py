"""Loads a config and crashes on a missing key, as scripts do."""
import json


def load(text):
    return json.loads(text)


def port(config):
    return int(config["server"]["port"])


def main():
    config = load('{"server": {"host": "localhost"}}')
    print("listening on", port(config))


if __name__ == "__main__":
    main()
