"""Holds every session of a task after its first until a file exists (cli/tests/dashboard.rs).

    python3 gate.py GATE COMMAND...

The first session runs COMMAND at once. Each later one first waits, up to two minutes, for the
file GATE to exist: the task stays `running` for as long as the test needs to look at it, with no
fixed sleep on either side. COMMAND then runs in place of this process, with its standard input
(the prompt). Nothing here runs a shell.
"""

import os
import sys
import time


def main():
    gate, command = sys.argv[1], sys.argv[2:]
    first = gate + ".first"
    if os.path.exists(first):
        deadline = time.time() + 120
        while not os.path.exists(gate) and time.time() < deadline:
            time.sleep(0.05)
    else:
        with open(first, "w", encoding="utf-8"):
            pass
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
