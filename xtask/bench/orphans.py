"""Orphan trials per stop path: how many processes a verifier (or agent) starts outside its
process group are left running after verdict is stopped one way, over N trials.

Each trial runs a fresh project whose verifier starts `setsid sleep 1000` and a double-forked
`sleep 1000`, writes their pids, then waits; verdict is stopped (a run's time-out, Ctrl-C, the
hook's deadline, an MCP cancel, an MCP disconnect, SIGTERM to the MCP server, the loop's agent
time-out, kill -9 then the next run), and after at most 3 s the escapees still running (zombies
do not count) are counted and killed. Prints one line per path: trials, leftovers.

Usage: python3 xtask/bench/orphans.py VERDICT_BINARY [TRIALS] [MODE]
  MODE: auto (default) or subreaper (sets VERDICT_CONTAINMENT=subreaper) or group
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

LEAK = """setsid sleep 1000 > /dev/null 2>&1 < /dev/null &
echo $! > setsid.pid
sh -c '(sleep 1000 & echo $! > double.tmp && mv double.tmp double.pid) &'
while [ ! -f double.pid ]; do sleep 0.02; done
: > ready
sleep 100
"""


def config(timeout):
    return (
        '[[verifier]]\nname = "leaky"\nkind = "test"\ncommand = ["sh", "leak.sh"]\n'
        f'timeout = "{timeout}"\n'
    )


def live(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def wait_file(path, limit=20):
    until = time.monotonic() + limit
    while not os.path.exists(path):
        if time.monotonic() > until:
            raise RuntimeError(f"{path} never appeared")
        time.sleep(0.01)


def leftovers(project):
    pids = [int(open(os.path.join(project, f)).read()) for f in ("setsid.pid", "double.pid")]
    until = time.monotonic() + 3
    while time.monotonic() < until and any(live(p) for p in pids):
        time.sleep(0.02)
    left = [p for p in pids if live(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    return len(left)


class Trial:
    def __init__(self, binary, env, timeout="60s"):
        self.binary = binary
        self.env = env
        self.dir = tempfile.TemporaryDirectory(prefix="verdict-orphans-")
        self.root = self.dir.name
        with open(os.path.join(self.root, "leak.sh"), "w") as f:
            f.write(LEAK)
        with open(os.path.join(self.root, "verdict.toml"), "w") as f:
            f.write(config(timeout))

    def start(self, args, stdin=subprocess.DEVNULL):
        return subprocess.Popen(
            [self.binary, *args],
            cwd=self.root,
            env=self.env,
            stdin=stdin,
            stdout=subprocess.PIPE if stdin == subprocess.PIPE else subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def ready(self):
        wait_file(os.path.join(self.root, "ready"))

    def count(self):
        n = leftovers(self.root)
        self.dir.cleanup()
        return n


def send(proc, message):
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def mcp_start(trial):
    proc = trial.start(["mcp"], stdin=subprocess.PIPE)
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "orphans", "version": "0"}}})
    send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "verify", "arguments": {}}})
    trial.ready()
    return proc


def run_timeout(binary, env):
    t = Trial(binary, env, "1s")
    p = t.start(["run"])
    t.ready()
    p.wait(timeout=30)
    return t.count()


def ctrl_c(binary, env):
    t = Trial(binary, env)
    p = t.start(["run"])
    t.ready()
    p.send_signal(signal.SIGINT)
    p.wait(timeout=30)
    return t.count()


def hook_deadline(binary, env):
    t = Trial(binary, env)
    p = t.start(["hook", "claude", "--deadline", "1"], stdin=subprocess.PIPE)
    p.stdin.write(json.dumps({"session_id": "s", "cwd": t.root, "hook_event_name": "Stop",
                              "transcript_path": os.path.join(t.root, "t.jsonl"),
                              "stop_hook_active": False}).encode())
    p.stdin.close()
    t.ready()
    p.wait(timeout=30)
    return t.count()


def mcp_cancel(binary, env):
    t = Trial(binary, env)
    p = mcp_start(t)
    send(p, {"jsonrpc": "2.0", "method": "notifications/cancelled",
             "params": {"requestId": 2, "reason": "bench"}})
    time.sleep(1)
    p.stdin.close()
    p.wait(timeout=30)
    return t.count()


def mcp_disconnect(binary, env):
    t = Trial(binary, env)
    p = mcp_start(t)
    p.stdin.close()
    p.wait(timeout=30)
    return t.count()


def mcp_sigterm(binary, env):
    t = Trial(binary, env)
    p = mcp_start(t)
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=30)
    p.stdin.close()
    return t.count()


def loop_agent_timeout(binary, env):
    t = Trial(binary, env)
    with open(os.path.join(t.root, "verdict.toml"), "w") as f:
        f.write('[[verifier]]\nname = "check"\nkind = "test"\n'
                'command = ["sh", "-c", "test -f fixed"]\n')
    p = t.start(["loop", "--task", "fix it", "--agent", "sh leak.sh", "--agent-timeout", "1"])
    t.ready()
    p.wait(timeout=60)
    return t.count()


def kill9_then_run(binary, env):
    t = Trial(binary, env)
    p = t.start(["run"])
    t.ready()
    p.kill()
    p.wait()
    with open(os.path.join(t.root, "verdict.toml"), "w") as f:
        f.write('[[verifier]]\nname = "quick"\nkind = "lint"\ncommand = ["true"]\n')
    t.start(["run"]).wait(timeout=30)
    return t.count()


PATHS = [
    ("run time-out", run_timeout),
    ("Ctrl-C (SIGINT to verdict run)", ctrl_c),
    ("hook deadline", hook_deadline),
    ("MCP cancel", mcp_cancel),
    ("MCP disconnect (stdin closed)", mcp_disconnect),
    ("MCP SIGTERM", mcp_sigterm),
    ("loop agent time-out", loop_agent_timeout),
    ("kill -9 of verdict run, then the next run", kill9_then_run),
]


def main():
    binary = os.path.abspath(sys.argv[1])
    trials = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    mode = sys.argv[3] if len(sys.argv) > 3 else "auto"
    env = dict(os.environ, VERDICT_STATE_DIR=".verdict", VERDICT_CONTAINMENT=mode)
    for name, path in PATHS:
        started = time.monotonic()
        left = sum(path(binary, env) for _ in range(trials))
        print(f"| {name} | {trials} | {left} | {time.monotonic() - started:.1f} s |", flush=True)


if __name__ == "__main__":
    main()
