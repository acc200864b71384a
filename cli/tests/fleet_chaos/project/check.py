"""The chaos tests' verifier: the work is done when work.txt says `done`.

With CHAOS_PAUSE_VERIFY=DIR in its environment, the first check of finished work writes
DIR/verifying (its pid) and sleeps until killed: the worker is then "verifying".
"""

import os
import sys
import time


def main():
    try:
        with open("work.txt", encoding="utf-8") as file:
            work = file.read().strip()
    except FileNotFoundError:
        work = ""
    pause = os.environ.get("CHAOS_PAUSE_VERIFY")
    if work == "done" and pause:
        try:
            os.close(os.open(os.path.join(pause, "verifying.once"), os.O_CREAT | os.O_EXCL))
            first = True
        except FileExistsError:
            first = False
        if first:
            mark = os.path.join(pause, "verifying")
            with open(mark + ".tmp", "w", encoding="utf-8") as file:
                file.write(str(os.getpid()))
            os.replace(mark + ".tmp", mark)
            time.sleep(3600)
    if work == "done":
        print("1 passed, 0 failed")
        return 0
    print("work.txt:1: the work is not done (it says %r)" % work)
    print("0 passed, 1 failed")
    return 1


if __name__ == "__main__":
    sys.exit(main())
