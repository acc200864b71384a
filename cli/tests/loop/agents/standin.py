#!/usr/bin/env python3
"""Stand-ins for the coding-agent CLIs of verdict's loop presets (cli/tests/presets.rs).

The test copies this file into a directory on PATH under the names `claude`, `codex`, `aider` and
`gemini`; each reads its argv the way that CLI's own argument parser does and fails as it would on
an unknown option, a missing or malformed value, or a value outside the accepted choices:

    claude  commander.js: `--opt value` and `--opt=value`; variadic options (`--allowedTools`)
            take every following word up to the next one starting with `-`, each word itself a
            comma- or space-separated list of rules (`Read`, `Bash(npm test:*)`, `mcp__s__t`);
            unknown option → "error: unknown option", exit 1.
    codex   clap (`codex exec [OPTIONS] [PROMPT]`, `-` reads stdin): unknown argument → exit 2.
            Outside a git repository it refuses to run without `--skip-git-repo-check`.
    aider   Python argparse (aider's parser is configargparse over argparse): `--x/--no-x` pairs,
            unambiguous abbreviations; errors exit 2. Unless told not to, it commits its edit and
            the dirty files to the user's git repository, and adds `.aider*` to `.gitignore`.
    gemini  yargs in strict mode: unknown argument → exit 1; `--yolo` and `--approval-mode`
            together are an error. Folder trust is on and the folder is not trusted: headless, it
            refuses to run unless `GEMINI_CLI_TRUST_WORKSPACE=true` or `--skip-trust`.

Once its argv is accepted, a stand-in reads the prompt where that CLI reads it, fixes the cart
fixture's discount (cli/tests/loop/cart) when there is one, records what it parsed in
$VERDICT_STANDIN_LOG/<cli>-<n>.json and exits 0. The claude stand-in also does what an agent does
after a fix: it runs the project's tests, `.venv/bin/python -m pytest -q` or the command in
$VERDICT_STANDIN_TEST (words split on spaces: `npm test`), if and only if a `Bash(...)` rule of
`--allowedTools` allows that command (as `acceptEdits` would otherwise refuse it), and records
whether it could.
"""

import argparse
import json
import os
import re
import subprocess
import sys

FIX = ("cart.py", "return total + total * percent / 100", "return total - total * percent / 100")


def fail(code, message):
    print(message, file=sys.stderr)
    sys.exit(code)


def split_long(arg):
    """`--opt=value` → ("--opt", "value"); anything else → (arg, None)."""
    if arg.startswith("--") and "=" in arg:
        name, value = arg.split("=", 1)
        return name, value
    return arg, None


def parse_commander(argv, booleans, values, variadics, choices, max_positionals):
    """Parses argv as commander.js does for the options given (each a list of spellings)."""
    canonical = {}
    for group, kind in ((booleans, "bool"), (values, "value"), (variadics, "variadic")):
        for spellings in group:
            for spelling in spellings:
                canonical[spelling] = (spellings[-1], kind)
    parsed, positionals, i = {}, [], 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            positionals.extend(argv[i:])
            break
        if not arg.startswith("-") or arg == "-":
            positionals.append(arg)
            continue
        name, inline = split_long(arg)
        if name not in canonical:
            fail(1, f"error: unknown option '{name}'")
        key, kind = canonical[name]
        if kind == "bool":
            if inline is not None:
                fail(1, f"error: option '{name}' does not take a value")
            parsed[key] = True
        elif kind == "value":
            if inline is None:
                if i >= len(argv) or argv[i].startswith("-"):
                    fail(1, f"error: option '{name} <value>' argument missing")
                inline = argv[i]
                i += 1
            if key in choices and inline not in choices[key]:
                fail(1, f"error: option '{name}' argument '{inline}' is invalid")
            parsed[key] = inline
        else:
            taken = [] if inline is None else [inline]
            while i < len(argv) and not argv[i].startswith("-"):
                taken.append(argv[i])
                i += 1
            if not taken:
                fail(1, f"error: option '{name} <values...>' argument missing")
            parsed.setdefault(key, []).extend(taken)
    if len(positionals) > max_positionals:
        fail(1, f"error: too many arguments: {positionals}")
    return parsed, positionals


def split_rules(word):
    """One `--allowedTools` word as Claude Code splits it: on commas and spaces outside ()."""
    rules, depth, current = [], 0, ""
    for char in word:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                fail(1, f"error: unbalanced parenthesis in tool rule {word!r}")
        if depth == 0 and char in ", ":
            if current:
                rules.append(current)
            current = ""
        else:
            current += char
    if depth != 0:
        fail(1, f"error: unbalanced parenthesis in tool rule {word!r}")
    if current:
        rules.append(current)
    return rules


RULE = re.compile(r"^(?:mcp__[A-Za-z0-9_-]+(?:__[A-Za-z0-9_-]+)?|[A-Z][A-Za-z]*(?:\((.+)\))?)$")


def check_rule(rule):
    match = RULE.match(rule)
    if not match:
        fail(1, f"error: invalid tool rule {rule!r}")
    content = match.group(1)
    if content is not None and ":*" in content and not content.endswith(":*"):
        fail(1, f"error: `:*` must end the rule {rule!r}")


def allowed(rules, command):
    """Whether a `Bash(...)` rule allows `command` (words joined by spaces), as prefix rules do."""
    for rule in rules:
        if not (rule.startswith("Bash(") and rule.endswith(")")):
            continue
        content = rule[len("Bash("):-1]
        if content.endswith(":*"):
            prefix = content[:-2]
            if command == prefix or command.startswith(prefix + " "):
                return True
        elif command == content:
            return True
    return False


def claude(argv):
    parsed, positionals = parse_commander(
        argv,
        booleans=[["-p", "--print"], ["-c", "--continue"], ["--verbose"],
                  ["--dangerously-skip-permissions"], ["--strict-mcp-config"]],
        values=[["--output-format"], ["--permission-mode"], ["--max-turns"], ["--model"],
                ["--append-system-prompt"], ["--fallback-model"], ["--settings"]],
        variadics=[["--allowed-tools", "--allowedTools"], ["--disallowed-tools", "--disallowedTools"],
                   ["--mcp-config"], ["--add-dir"]],
        choices={
            "--output-format": {"text", "json", "stream-json"},
            "--permission-mode": {"acceptEdits", "bypassPermissions", "default", "dontAsk", "plan"},
        },
        max_positionals=1,
    )
    if "--max-turns" in parsed and not parsed["--max-turns"].isdigit():
        fail(1, "error: --max-turns must be a number")
    if not parsed.get("--print"):
        fail(1, "error: the stand-in only runs headless (-p)")
    rules = [r for word in parsed.get("--allowedTools", []) for r in split_rules(word)]
    for rule in rules:
        check_rule(rule)
    prompt = positionals[0] if positionals else sys.stdin.read()
    fix()
    test = [".venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    typed = " ".join(test[:3])
    if os.environ.get("VERDICT_STANDIN_TEST"):
        test = os.environ["VERDICT_STANDIN_TEST"].split(" ")
        typed = " ".join(test)
    mode = parsed.get("--permission-mode", "default")
    may_run = mode == "bypassPermissions" or allowed(rules, typed)
    tests_exit = subprocess.run(test, stdout=subprocess.DEVNULL).returncode if may_run else None
    return {"args": parsed, "rules": rules, "prompt": prompt, "ran_tests": may_run,
            "tests_exit": tests_exit}


def in_git_repository():
    probe = subprocess.run(["git", "rev-parse", "--is-inside-work-tree"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return probe.returncode == 0 and probe.stdout.strip() == "true"


def codex(argv):
    if not argv or argv[0] != "exec":
        fail(2, "error: the stand-in only runs `codex exec`")
    booleans = {"--skip-git-repo-check", "--full-auto", "--json", "--oss",
                "--dangerously-bypass-approvals-and-sandbox"}
    values = {"-s": "--sandbox", "--sandbox": "--sandbox", "-m": "--model", "--model": "--model",
              "-C": "--cd", "--cd": "--cd", "-c": "--config", "--config": "--config",
              "-o": "--output-last-message", "--output-last-message": "--output-last-message",
              "--color": "--color", "-p": "--profile", "--profile": "--profile"}
    choices = {"--sandbox": {"read-only", "workspace-write", "danger-full-access"},
               "--color": {"always", "never", "auto"}}
    parsed, positionals, rest, i = {}, [], argv[1:], 0
    while i < len(rest):
        arg = rest[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            positionals.append(arg)
            continue
        name, inline = split_long(arg)
        if name in booleans and inline is None:
            parsed[name] = True
        elif name in values:
            if inline is None:
                if i >= len(rest):
                    fail(2, f"error: a value is required for '{name} <VALUE>' but none was supplied")
                inline = rest[i]
                i += 1
            key = values[name]
            if key in choices and inline not in choices[key]:
                fail(2, f"error: invalid value '{inline}' for '{name} <VALUE>'")
            parsed[key] = inline
        else:
            fail(2, f"error: unexpected argument '{arg}' found")
    if len(positionals) > 1:
        fail(2, f"error: unexpected argument '{positionals[1]}' found")
    if not parsed.get("--skip-git-repo-check") and not in_git_repository():
        fail(1, "Not inside a trusted directory and --skip-git-repo-check was not specified.")
    prompt = sys.stdin.read() if not positionals or positionals[0] == "-" else positionals[0]
    fix()
    return {"args": parsed, "prompt": prompt}


def aider(argv):
    parser = argparse.ArgumentParser(prog="aider")
    parser.add_argument("files", nargs="*")
    parser.add_argument("--yes-always", action="store_true")
    parser.add_argument("--model")
    parser.add_argument("--message", "--msg", "-m")
    parser.add_argument("--message-file", "-f")
    for flag in ("pretty", "auto-commits", "dirty-commits", "gitignore", "git", "stream"):
        parser.add_argument(f"--{flag}", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args(argv)
    if args.message_file is None and args.message is None:
        fail(2, "aider: the stand-in only runs one message (--message or --message-file)")
    prompt = args.message if args.message is not None else open(args.message_file).read()
    in_repo = args.git and in_git_repository()
    git = ["git", "-c", "user.name=aider", "-c", "user.email=aider@example.invalid"]
    if in_repo and args.dirty_commits:
        subprocess.run(git + ["commit", "-qam", "wip: changes before aider edits"],
                       stdout=subprocess.DEVNULL)
    if in_repo and args.gitignore:
        with open(".gitignore", "a") as ignore:
            ignore.write(".aider*\n")
    fix()
    if in_repo and args.auto_commits:
        subprocess.run(git + ["commit", "-qam", "fix: the discount"], stdout=subprocess.DEVNULL)
    return {"args": vars(args), "prompt": prompt}


def gemini(argv):
    parsed, positionals = parse_commander(
        argv,
        booleans=[["-y", "--yolo"], ["-s", "--sandbox"], ["-d", "--debug"], ["--skip-trust"]],
        values=[["-p", "--prompt"], ["-m", "--model"], ["--approval-mode", "--approvalMode"],
                ["-o", "--output-format"]],
        variadics=[["--include-directories"]],
        choices={
            "--approvalMode": {"default", "auto_edit", "yolo", "plan"},
            "--output-format": {"text", "json", "stream-json"},
        },
        max_positionals=1,
    )
    if parsed.get("--yolo") and "--approvalMode" in parsed:
        fail(1, "Cannot use both --yolo (-y) and --approval-mode together.")
    trusted = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "true" or parsed.get("--skip-trust")
    if not trusted:
        fail(1, "Gemini CLI is not running in a trusted directory; trust it to run headless.")
    prompt = parsed.get("--prompt")
    if prompt is None:
        fail(1, "the stand-in only runs headless (-p)")
    fix()
    return {"args": parsed, "prompt": prompt}


def fix():
    path, wrong, right = FIX
    if not os.path.exists(path):
        return
    with open(path) as source:
        text = source.read()
    with open(path, "w") as source:
        source.write(text.replace(wrong, right))


def main():
    name = os.path.basename(sys.argv[0])
    handlers = {"claude": claude, "codex": codex, "aider": aider, "gemini": gemini}
    if name not in handlers:
        fail(2, f"no stand-in called {name}")
    record = handlers[name](sys.argv[1:])
    if not record.get("prompt", "").strip():
        fail(1, f"{name}: no prompt")
    record["argv"] = sys.argv[1:]
    record["env_trust"] = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    log = os.environ["VERDICT_STANDIN_LOG"]
    os.makedirs(log, exist_ok=True)
    n = len([f for f in os.listdir(log) if f.startswith(name + "-")]) + 1
    with open(os.path.join(log, f"{name}-{n}.json"), "w") as out:
        json.dump(record, out)


if __name__ == "__main__":
    main()
