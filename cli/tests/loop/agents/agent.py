"""A scripted coding agent for the end-to-end tests of `verdict loop` (cli/tests/loop.rs).

    python3 agent.py MODE --log DIR [--from DIR] [--prompt TEXT | --prompt-file PATH]

It runs in the project verdict hands it (its working directory), reads the prompt (from
--prompt, from the file --prompt-file names, else from stdin), and records each call in DIR:
`calls` (the call counter, which is how one agent acts differently from one session to the next),
`prompt-N.txt` (the prompt of call N), `argv-N.json` (its argv) and `cwd-N.txt`. Then it does what
MODE says for call N, really editing the project:

    fix                 fix the cart's discount (or the greeting's type error) at once
    fix-on-second       call 1 edits a comment only, later calls fix
    break-another       call N breaks a different cart function each time (never green)
    touch               edits a comment only, every time (the same failure again)
    nothing-then-fix    call 1 changes nothing at all, later calls fix
    rate-limit-then-fix call 1 prints a 429 with a retry-after of 1 s and exits 1, then fixes
    auth                prints an authentication error and exits 1
    sleep               writes DIR/ready, then sleeps far past any time-out
    hang-then-fix       call 1 writes DIR/ready and sleeps until killed, later calls fix
    touch-hang-fix      call 1 edits a comment only, call 2 writes DIR/ready and sleeps until
                        killed, later calls fix
    fix-slow-verify     fixes, and adds a test that writes DIR/verifying and sleeps 5 s, once
    flaky               fixes, and adds a test that fails on every other run (counted in DIR)
    delete-test         deletes the failing test function
    skip-test           marks the failing test @pytest.mark.skip
    edit-test           makes the failing test expect what the buggy code returns
    return-test         puts `return` at the top of the failing test (same tests, no marker)
    junk                writes junk-N.txt, lists the junk files it found in DIR/seen-N.txt, and
                        fixes from call 2 on
    overlay             lays the overlay --from names over the project: every file under it
                        is written to the same path in the project (directories created), and
                        the paths its `.delete` lists (one a line) are deleted; on call N its
                        subdirectory `N/` is the overlay, where there is one
    capture             (the escalation command) copies stdin to DIR/escalation.json

Nothing here runs a shell: the tests check that a task text holding shell syntax creates no file.
"""

import argparse
import json
import os
import sys
import time

# (file, text with the bug, text without it): what "fix" changes in each fixture.
FIXES = [
    ("cart.py", "return total + total * percent / 100", "return total - total * percent / 100"),
    ("src/greet.ts", 'greet("hello", "2")', 'greet("hello", 2)'),
]

# Each cart function's right code and a wrong one, for "break-another".
CART_FUNCTIONS = [
    ("price * qty", "price + qty"),
    ("total * rate", "total / rate"),
    ("total - total * percent", "total + total * percent"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--log", required=True)
    parser.add_argument("--from", dest="overlay")
    parser.add_argument("--prompt")
    parser.add_argument("--prompt-file")
    args = parser.parse_args()
    os.makedirs(args.log, exist_ok=True)

    if args.mode == "capture":
        write(os.path.join(args.log, "escalation.json"), sys.stdin.read())
        return 0

    call = next_call(args.log)
    if args.prompt is not None:
        prompt = args.prompt
    elif args.prompt_file is not None:
        with open(args.prompt_file, encoding="utf-8") as file:
            prompt = file.read()
    else:
        prompt = sys.stdin.read()
    write(log_path(args.log, f"prompt-{call}.txt"), prompt)
    write(log_path(args.log, f"argv-{call}.json"), json.dumps(sys.argv))
    write(log_path(args.log, f"cwd-{call}.txt"), os.getcwd())
    if args.mode == "overlay":
        return overlay(args.overlay, call)
    return act(args.mode, call, args.log)


def act(mode, call, log):
    if mode == "fix":
        fix()
    elif mode == "fix-on-second":
        if call == 1:
            touch_comment(call)
        else:
            fix()
    elif mode == "break-another":
        break_one(call)
    elif mode == "nothing-then-fix":
        if call >= 2:
            fix()
    elif mode == "touch":
        touch_comment(call)
    elif mode == "rate-limit-then-fix":
        if call == 1:
            print("working on it", flush=True)
            print("Error: 429 Too Many Requests, retry after 1 seconds", file=sys.stderr)
            return 1
        fix()
    elif mode == "auth":
        print("Error: 401 Unauthorized: invalid x-api-key", file=sys.stderr)
        return 1
    elif mode == "sleep":
        ready(log)
        time.sleep(120)
    elif mode == "hang-then-fix":
        if call == 1:
            ready(log)
            time.sleep(120)
        fix()
    elif mode == "touch-hang-fix":
        if call == 1:
            touch_comment(call)
        elif call == 2:
            ready(log)
            time.sleep(120)
        else:
            fix()
    elif mode == "fix-slow-verify":
        fix()
        write("test_slow.py", SLOW_TEST.format(log=json.dumps(log)))
    elif mode == "flaky":
        fix()
        write("test_flaky.py", FLAKY_TEST.format(log=json.dumps(log)))
    elif mode == "delete-test":
        edit("test_cart.py", "def test_discount():\n    assert discount(200, 10) == 180\n", "")
    elif mode == "skip-test":
        edit("test_cart.py", "def test_discount():", "@pytest.mark.skip\ndef test_discount():")
        edit("test_cart.py", "from cart import", "import pytest\n\nfrom cart import")
    elif mode == "edit-test":
        edit("test_cart.py", "== 180", "== 220.0")
    elif mode == "return-test":
        edit("test_cart.py", "def test_discount():\n", "def test_discount():\n    return\n")
    elif mode == "junk":
        found = sorted(name for name in os.listdir(".") if name.startswith("junk-"))
        write(log_path(log, f"seen-{call}.txt"), "".join(f"{name}\n" for name in found))
        write(f"junk-{call}.txt", f"left by call {call}\n")
        if call >= 2:
            fix()
    else:
        print(f"agent.py: unknown mode {mode}", file=sys.stderr)
        return 2
    return 0


def next_call(log):
    """Increments and returns the call counter kept in LOG/calls."""
    path = os.path.join(log, "calls")
    try:
        with open(path, encoding="utf-8") as file:
            call = int(file.read().strip() or "0") + 1
    except FileNotFoundError:
        call = 1
    write(path, str(call))
    return call


def log_path(log, name):
    return os.path.join(log, name)


def write(path, text):
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)


def read(path):
    with open(path, encoding="utf-8") as file:
        return file.read()


def edit(path, old, new):
    text = read(path)
    if old not in text:
        raise SystemExit(f"agent.py: {old!r} is not in {path}")
    write(path, text.replace(old, new, 1))


def fix():
    for path, bug, fixed in FIXES:
        if os.path.exists(path) and bug in read(path):
            edit(path, bug, fixed)


def touch_comment(call):
    """A change that fixes nothing: the workspace changed, the failure did not."""
    for path, comment in [("cart.py", "#"), ("src/greet.ts", "//")]:
        if os.path.exists(path):
            with open(path, "a", encoding="utf-8") as file:
                file.write(f"{comment} call {call} looked at this and changed nothing that matters\n")


def break_one(call):
    """Call N leaves every cart function right but one, a different one from call N-1."""
    text = read("cart.py")
    for right, wrong in CART_FUNCTIONS:
        text = text.replace(wrong, right)
    right, wrong = CART_FUNCTIONS[(call - 1) % len(CART_FUNCTIONS)]
    write("cart.py", text.replace(right, wrong))


def overlay(source, call):
    """Lays the overlay SOURCE (or SOURCE/CALL, where there is one) over the project."""
    if source is None:
        print("agent.py: overlay needs --from DIR", file=sys.stderr)
        return 2
    numbered = os.path.join(source, str(call))
    if os.path.isdir(numbered):
        source = numbered
    for top, dirs, files in os.walk(source):
        rel_top = os.path.relpath(top, source)
        if rel_top == ".":
            # The numbered overlays of the other calls are not files of this one.
            dirs[:] = [d for d in dirs if not d.isdigit()]
        for name in files:
            rel = os.path.normpath(os.path.join(rel_top, name))
            if rel == ".delete":
                continue
            os.makedirs(os.path.dirname(rel) or ".", exist_ok=True)
            with open(os.path.join(top, name), "rb") as src, open(rel, "wb") as dst:
                dst.write(src.read())
    listed = os.path.join(source, ".delete")
    if os.path.exists(listed):
        for line in read(listed).splitlines():
            path = line.strip()
            if path and os.path.lexists(path):
                os.remove(path)
    return 0


def ready(log):
    write(log_path(log, "ready"), str(os.getpid()))


SLOW_TEST = '''"""Slow once: lets the test kill verdict while it verifies."""
import os
import time

LOG = {log}


def test_slow_once():
    marker = os.path.join(LOG, "slept")
    if not os.path.exists(marker):
        with open(marker, "w") as file:
            file.write("1")
        with open(os.path.join(LOG, "verifying"), "w") as file:
            file.write(str(os.getpid()))
        time.sleep(5)
'''

FLAKY_TEST = '''"""Fails on every other run, counted in a file outside the project tree."""
import os

LOG = {log}


def test_flaky():
    path = os.path.join(LOG, "flaky-runs")
    try:
        with open(path) as file:
            runs = int(file.read()) + 1
    except FileNotFoundError:
        runs = 1
    with open(path, "w") as file:
        file.write(str(runs))
    assert runs % 2 == 0, f"flaky run {{runs}}"
'''


if __name__ == "__main__":
    sys.exit(main())
