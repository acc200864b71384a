"""A scripted agent whose change makes a test fail with a secret in its output
(cli/tests/dashboard.rs).

    python3 leak.py SECRET_FILE

It reads a token from SECRET_FILE, adds a test to the cart's tests that prints it and fails with
it in its message, and prints it itself: the token is then in the agent's log, the verifier's
output and the digest the next prompt carries. The dashboard must show none of it unredacted.
"""

import sys

TEST = '''

def test_leaks_a_token():
    print("the deploy token is {token}")
    assert False, "login failed with {token}"
'''


def main():
    with open(sys.argv[1], encoding="utf-8") as file:
        token = file.read().strip()
    sys.stdin.read()
    with open("test_cart.py", "a", encoding="utf-8") as file:
        file.write(TEST.format(token=token))
    print("added a test; it used " + token)
    return 0


if __name__ == "__main__":
    sys.exit(main())
