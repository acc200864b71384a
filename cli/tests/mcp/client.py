"""A real MCP client for the tests of `verdict mcp` (cli/tests/mcp.rs).

It uses the official Python SDK (`mcp`, pinned in xtask/tools/mcp/requirements.txt and
installed by `cargo xtask tools`) to start `verdict mcp` over stdio, then runs the steps given
as JSON in argv[1] and prints one JSON object per step on stdout, for the Rust test to check:

  {"do": "initialize"}                      -> the server's info and capabilities (the handshake
                                               itself always comes first)
  {"do": "list_tools"}                      -> every tool with its schemas
  {"do": "call", "tool": T, "args": {...}}  -> the result (content, structuredContent, isError)
                                               and the progress notifications received
  {"do": "write", "file": F, "text": X}     -> writes X to the project's file F (an agent's edit)
  {"do": "list_resources"}                  -> every resource the server lists
  {"do": "read_resource", "uri": U}         -> the contents of resource U, or the JSON-RPC error
                                               (code and message) the server answered with
  {"do": "read_links"}                      -> the same for each resource_link of the last call's
                                               result, as {"reads": [{"uri", "result"|"error"}]}
  {"do": "cancel", "tool": T, "args": {...}, "when_file": F, "group_file": G}
      -> starts the call, waits until the file F (relative to the project) exists, cancels the
         call (the SDK sends notifications/cancelled), then watches the process group whose id
         the file G holds until none of its processes is left, at most 30 s

The SDK validates each structuredContent against the tool's declared outputSchema: a result
that does not conform raises here, and the test fails.

Usage: client.py STEPS_JSON  (with VERDICT_BIN and VERDICT_PROJECT in the environment)
"""

import json
import os
import sys
import time

import anyio

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError


# The resource links of the last call's result, for `read_links`.
LAST_LINKS = []


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def group_members(pgid):
    """Pids of the live processes in process group `pgid` (zombies count as gone)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the command's name: state, ppid, pgrp.
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry))
    return members


async def read_resource(session, uri):
    try:
        read = await session.read_resource(uri)
    except MCPError as error:
        return {"uri": uri, "error": {"code": error.error.code, "message": error.error.message}}
    return {"uri": uri, "result": read.model_dump(by_alias=True, mode="json", exclude_none=True)}


async def call(session, step):
    progress = []

    async def on_progress(done, total, message):
        progress.append({"progress": done, "total": total, "message": message})

    started = time.monotonic()
    result = await session.call_tool(
        step["tool"], step.get("args", {}), progress_callback=on_progress
    )
    LAST_LINKS[:] = [c.uri for c in result.content if getattr(c, "type", None) == "resource_link"]
    emit(
        "call",
        tool=step["tool"],
        seconds=time.monotonic() - started,
        result=result.model_dump(by_alias=True, mode="json", exclude_none=True),
        progress=progress,
    )


async def cancel(session, step, project):
    scope = anyio.CancelScope()
    finished = {}

    async def run():
        with scope:
            finished["result"] = await session.call_tool(step["tool"], step.get("args", {}))

    async with anyio.create_task_group() as group:
        group.start_soon(run)
        marker = os.path.join(project, step["when_file"])
        deadline = time.monotonic() + 60
        while not os.path.exists(marker) or os.path.getsize(marker) == 0:
            if time.monotonic() > deadline or "result" in finished:
                break
            await anyio.sleep(0.05)
        started = os.path.exists(marker)
        # The group is looked at just before the cancel: once it is sent, the server may stop
        # some of it before this process looks again.
        with open(os.path.join(project, step["group_file"])) as f:
            pgid = int(f.read().strip())
        before = group_members(pgid)
        cancelled_at = time.monotonic()
        scope.cancel()
    left = before
    while left and time.monotonic() - cancelled_at < 30:
        await anyio.sleep(0.05)
        left = group_members(pgid)
    emit(
        "cancel",
        started=started,
        finished_before_cancel="result" in finished,
        pgid=pgid,
        members_at_cancel=before,
        members_left=left,
        seconds_to_stop=time.monotonic() - cancelled_at,
    )


async def main():
    steps = json.loads(sys.argv[1])
    project = os.environ["VERDICT_PROJECT"]
    server = StdioServerParameters(
        command=os.environ["VERDICT_BIN"],
        args=["mcp"],
        cwd=project,
        env={"PATH": os.environ["PATH"]},
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            # The handshake comes first, whatever the steps.
            info = await session.initialize()
            for step in steps:
                kind = step["do"]
                if kind == "initialize":
                    emit("initialize", result=info.model_dump(by_alias=True, mode="json", exclude_none=True))
                elif kind == "list_tools":
                    tools = await session.list_tools()
                    emit("list_tools", result=tools.model_dump(by_alias=True, mode="json", exclude_none=True))
                elif kind == "call":
                    await call(session, step)
                elif kind == "write":
                    path = os.path.join(project, step["file"])
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    before = os.stat(path).st_mtime if os.path.exists(path) else None
                    with open(path, "w") as f:
                        f.write(step["text"])
                    # Python's bytecode cache keys a module by its size and its mtime in whole
                    # seconds: an edit in the second of the last run, of the same size, would be
                    # read from the stale cache. An agent's edits are seconds apart.
                    if before is not None and int(os.stat(path).st_mtime) <= int(before):
                        os.utime(path, (before + 2, before + 2))
                    emit("write", file=step["file"])
                elif kind == "list_resources":
                    listed = await session.list_resources()
                    emit("list_resources", result=listed.model_dump(by_alias=True, mode="json", exclude_none=True))
                elif kind == "read_resource":
                    emit("read_resource", **await read_resource(session, step["uri"]))
                elif kind == "read_links":
                    emit("read_links", reads=[await read_resource(session, str(uri)) for uri in LAST_LINKS])
                elif kind == "cancel":
                    await cancel(session, step, project)
                else:
                    raise ValueError(f"unknown step {kind}")


if __name__ == "__main__":
    anyio.run(main)
