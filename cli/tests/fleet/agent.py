"""A scripted coding agent for the end-to-end tests of `verdict fleet` (cli/tests/fleet.rs).

    python3 agent.py MODE --ledger FILE --task KEY [--ready DIR]

It reads the prompt on stdin, takes the attempt's number from it ("This is attempt N of M"; the
first prompt has none: attempt 1), and appends one line to the ledger, a file outside the fleet's
database: {"task", "attempt", "host", "pid", "cwd"}. The tests count the ledger's lines to check
that each attempt ran exactly once: the database alone cannot show a double run. Then it really
edits the cart project in its working directory, as MODE says:

    fix             fixes the cart's discount at once
    fix-on-second   attempt 1 edits a comment only (the test still fails), later attempts fix
    touch           edits a comment only, every time (never green)
    sleep-then-fix  attempt 1 writes DIR/<task>.ready with its pid and sleeps until killed;
                    later attempts fix
    rate-limit      attempt 1 prints a 429 with a retry-after of 30 s and exits 1; later fix

Nothing here runs a shell.
"""

import argparse
import json
import os
import re
import socket
import sys
import time

BUG = "return total + total * percent / 100"
FIXED = "return total - total * percent / 100"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--task", required=True)
    parser.add_argument("--ready")
    args = parser.parse_args()
    prompt = sys.stdin.read()
    found = re.search(r"This is attempt (\d+) of", prompt)
    attempt = int(found.group(1)) if found else 1
    line = json.dumps(
        {
            "task": args.task,
            "attempt": attempt,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "cwd": os.getcwd(),
        }
    )
    # One write of one line with O_APPEND: lines of concurrent agents never interleave.
    fd = os.open(args.ledger, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (line + "\n").encode())
    os.close(fd)

    if args.mode == "fix":
        fix()
    elif args.mode == "fix-on-second":
        touch() if attempt == 1 else fix()
    elif args.mode == "touch":
        touch()
    elif args.mode == "sleep-then-fix":
        if attempt == 1:
            ready = os.path.join(args.ready, args.task + ".ready")
            with open(ready + ".tmp", "w", encoding="utf-8") as file:
                file.write(str(os.getpid()))
            os.replace(ready + ".tmp", ready)
            time.sleep(3600)
        fix()
    elif args.mode == "rate-limit":
        if attempt == 1 and not os.path.exists(".rate-limited"):
            with open(".rate-limited", "w", encoding="utf-8") as file:
                file.write("1")
            print("Error: 429 Too Many Requests: rate limit exceeded. retry-after: 30", file=sys.stderr)
            return 1
        fix()
    else:
        print("unknown mode " + args.mode, file=sys.stderr)
        return 2
    print("done")
    return 0


def fix():
    replace(BUG, FIXED)


def touch():
    with open("cart.py", encoding="utf-8") as file:
        text = file.read()
    with open("cart.py", "w", encoding="utf-8") as file:
        file.write(text + "# looked at it\n")


def replace(old, new):
    with open("cart.py", encoding="utf-8") as file:
        text = file.read()
    with open("cart.py", "w", encoding="utf-8") as file:
        file.write(text.replace(old, new))


if __name__ == "__main__":
    sys.exit(main())
