"""The scripted agent of the chaos tests of `verdict fleet` (cli/tests/fleet_chaos.rs).

    python3 agent.py MODE --ledger FILE --task KEY --ready DIR

As cli/tests/fleet/agent.py, it counts its sessions per task in DIR/<task>.calls and appends one
line to the ledger, a file outside the fleet's database: {"task", "call", "attempt", "host",
"pid", "worker" (its parent's pid), "cwd"}, and another, {"task", "call", "end": true, "orphaned"}, when it ends (orphaned:
its worker died meanwhile). The tests read it to check that each attempt ran once and that no
agent outlives its task. Then it does the project's work (work.txt), as MODE says:

    done            writes `done` at once
    done-on-second  call 1 writes `not yet` (the check fails), later calls write `done`
    sleep-then-done call 1 writes DIR/<task>.ready with its pid and sleeps until killed; later
                    calls write `done`
    sleep           every call sleeps a while (CHAOS_AGENT_SLEEP seconds, default 0.5), then
                    writes `done`: an agent that is often running when its worker is killed

Nothing here runs a shell.
"""

import argparse
import json
import os
import re
import socket
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--task", required=True)
    parser.add_argument("--ready", required=True)
    args = parser.parse_args()
    parent = os.getppid()
    prompt = sys.stdin.read()
    found = re.search(r"This is attempt (\d+) of", prompt)
    attempt = int(found.group(1)) if found else 1
    call = next_call(os.path.join(args.ready, args.task + ".calls"))
    line = json.dumps(
        {
            "task": args.task,
            "call": call,
            "attempt": attempt,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "worker": parent,
            "cwd": os.getcwd(),
        }
    )
    # One write of one line with O_APPEND: lines of concurrent agents never interleave.
    fd = os.open(args.ledger, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (line + "\n").encode())
    os.close(fd)

    if args.mode == "done":
        work("done")
    elif args.mode == "done-on-second":
        work("not yet" if call == 1 else "done")
    elif args.mode == "sleep-then-done":
        if call == 1:
            ready = os.path.join(args.ready, args.task + ".ready")
            with open(ready + ".tmp", "w", encoding="utf-8") as file:
                file.write(str(os.getpid()))
            os.replace(ready + ".tmp", ready)
            time.sleep(3600)
        work("done")
    elif args.mode == "sleep":
        time.sleep(float(os.environ.get("CHAOS_AGENT_SLEEP", "0.5")))
        work("done")
    else:
        print("unknown mode " + args.mode, file=sys.stderr)
        return 2
    # The session's end, on a line of its own: a session without one was cut short. One whose
    # parent changed meanwhile ran on after its worker died, and nobody saw it end.
    # (A worker killed as it spawned the agent leaves it to init from the start.)
    orphaned = os.getppid() != parent or parent == 1
    end = {"task": args.task, "call": call, "end": True, "orphaned": orphaned}
    fd = os.open(args.ledger, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps(end) + "\n").encode())
    os.close(fd)
    print("done")
    return 0


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


def work(text):
    with open("work.txt", "w", encoding="utf-8") as file:
        file.write(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
