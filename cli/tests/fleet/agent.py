"""A scripted coding agent for the end-to-end tests of `verdict fleet` (cli/tests/fleet.rs).

    python3 agent.py MODE --ledger FILE --task KEY --ready DIR

It reads the prompt on stdin and counts its sessions per task in DIR/<task>.calls (call N), and
appends one line to the ledger, a file outside the fleet's database: {"task", "call", "attempt"
(from the prompt's "This is attempt N of M", else 1), "host", "pid", "cwd"}. The tests count the
ledger's lines to check that each attempt ran exactly once: the database alone cannot show a
double run. It keeps each prompt in DIR/<task>-prompt-N.txt. Then it really edits the cart project in its working directory, as MODE says:

    fix             fixes the cart's discount at once
    fix-on-second   call 1 edits a comment only (the test still fails), later calls fix
    touch           edits a comment only, every time (never green)
    sleep-then-fix  call 1 writes DIR/<task>.ready with its pid and sleeps until killed; later
                    calls fix
    rate-limit      call 1 writes DIR/limited.json (the time), prints a 429 with a retry-after
                    of 6 s and exits 1; later calls fix
    fix-if-guided   fixes when the prompt carries a person's guidance ("GUIDE:"), else edits a
                    comment only
    slow-fix        takes 1.5 s, appends {"task", "start", "end"} to DIR/spans.jsonl, and fixes

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
    parser.add_argument("--ready", required=True)
    args = parser.parse_args()
    prompt = sys.stdin.read()
    found = re.search(r"This is attempt (\d+) of", prompt)
    attempt = int(found.group(1)) if found else 1
    call = next_call(os.path.join(args.ready, args.task + ".calls"))
    with open(os.path.join(args.ready, "%s-prompt-%d.txt" % (args.task, call)), "w", encoding="utf-8") as file:
        file.write(prompt)
    line = json.dumps(
        {
            "task": args.task,
            "call": call,
            "attempt": attempt,
            "time": time.time(),
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
        touch() if call == 1 else fix()
    elif args.mode == "touch":
        touch()
    elif args.mode == "fix-if-guided":
        fix() if "GUIDE:" in prompt else touch()
    elif args.mode == "sleep-then-fix":
        if call == 1:
            ready = os.path.join(args.ready, args.task + ".ready")
            with open(ready + ".tmp", "w", encoding="utf-8") as file:
                file.write(str(os.getpid()))
            os.replace(ready + ".tmp", ready)
            time.sleep(3600)
        fix()
    elif args.mode == "rate-limit":
        if call == 1:
            record(os.path.join(args.ready, "limited.json"), {"time": time.time()})
            print("Error: 429 Too Many Requests: rate limit exceeded. retry-after: 6", file=sys.stderr)
            return 1
        fix()
    elif args.mode == "slow-fix":
        start = time.time()
        time.sleep(1.5)
        record(
            os.path.join(args.ready, "spans.jsonl"),
            {"task": args.task, "start": start, "end": time.time()},
        )
        fix()
    else:
        print("unknown mode " + args.mode, file=sys.stderr)
        return 2
    print("done")
    return 0


def record(path, value):
    """Appends one JSON line to `path` in one write."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps(value) + "\n").encode())
    os.close(fd)


def next_call(path):
    """This session's number for its task, counted in a file (sessions of a task never overlap)."""
    try:
        with open(path, encoding="utf-8") as file:
            call = int(file.read().strip() or "0") + 1
    except FileNotFoundError:
        call = 1
    with open(path + ".tmp", "w", encoding="utf-8") as file:
        file.write(str(call))
    os.replace(path + ".tmp", path)
    return call


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
