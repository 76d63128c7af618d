"""Drives `uidrive mcp` with the official MCP Python SDK: initialize,
tools/list, a snapshot and a press, refs scoped to the session, and the
observation-only mode. With --app CMD..., it opens that app on a headless
desktop instead of uidrive's demo UI, presses the button named --button (the
diff must show --expect), then runs the --then steps as one batch (its diff
must show --then-expect)."""

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CHECKS = 0


def check(condition, what):
    global CHECKS
    CHECKS += 1
    if not condition:
        raise AssertionError(what)
    print(f"ok - {what}")


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def server(uidrive, home, *extra, env=None):
    environment = {
        "XDG_CACHE_HOME": os.path.join(home, "cache"),
        "XDG_RUNTIME_DIR": home,
    }
    environment.update(env or {})
    return StdioServerParameters(command=uidrive, args=["mcp", *extra], env=environment)


async def full_session(uidrive, home, app, button, expect, then, then_expect):
    async with stdio_client(server(uidrive, home)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "uidrive", "initialize names the server uidrive")

            tools = {t.name: t for t in (await session.list_tools()).tools}
            for name in ["open", "snapshot", "press", "fill", "batch", "close", "windows"]:
                check(name in tools, f"tools/list offers {name}")
            check("skills" not in tools, "the CLI-only skills command is not a tool")
            check(tools["snapshot"].annotations.read_only_hint is True, "snapshot is read-only")
            check(tools["press"].annotations.read_only_hint is not True, "press is not read-only")
            # Hints left out are MCP's defaults: not read-only, destructive.
            check(tools["close"].annotations.destructive_hint is not False, "close is destructive")
            check(tools["press"].annotations.destructive_hint is False, "press is not destructive")
            props = tools["snapshot"].input_schema["properties"]
            check("interactive" in props and "window" in props, "snapshot's schema has interactive and window")
            check(tools["press"].input_schema.get("required") == ["target"], "press requires a target")

            if app:
                opened = await session.call_tool("open", {"launch": app, "headless": True, "timeout": 60000})
            else:
                opened = await session.call_tool("open", {"demo": True})
            check(not opened.is_error, "open: " + text_of(opened).splitlines()[0])

            snap = await session.call_tool("snapshot", {"interactive": True})
            lines = text_of(snap)
            check(not snap.is_error and re.search(r"^@e\d+ \[button\]", lines, re.M), "snapshot -i lists buttons with refs")
            match = re.search(r"^(@e\d+) \[button\] \"" + re.escape(button) + "\"", lines, re.M)
            check(match is not None, f"the snapshot has the button {button!r}")
            ref = match.group(1)

            pressed = await session.call_tool("press", {"target": ref, "settle": True})
            diff = text_of(pressed)
            print(diff)
            check(not pressed.is_error, f"press {ref} succeeded")
            check(re.search(r"^\+ .*" + re.escape(expect), diff, re.M), f"the diff shows {expect!r}")

            if then:
                batch = await session.call_tool("batch", {"steps": then})
                out = text_of(batch)
                print(out)
                check(not batch.is_error and out.startswith("ok 1:"), f"batch of {len(then)} steps ran")
                check(re.search(r"^\+ .*" + re.escape(then_expect), out, re.M), f"the batch's diff shows {then_expect!r}")

            stale = await session.call_tool("press", {"target": "@e99999"})
            check(stale.is_error and "stale_ref" in text_of(stale), "an unknown ref is refused as stale_ref")
            bad = await session.call_tool("press", {"nope": 1})
            check(bad.is_error and "invalid_request" in text_of(bad), "bad arguments are an invalid_request")

            shot = await session.call_tool("screenshot", {})
            images = [c for c in shot.content if getattr(c, "type", "") == "image"]
            check(not shot.is_error and images and images[0].mime_type == "image/png", "screenshot returns a PNG image")

            closed = await session.call_tool("close", {})
            check(not closed.is_error, "close")
            after = await session.call_tool("snapshot", {})
            check(after.is_error and "disconnected" in text_of(after), "after close nothing is open")


async def refs_are_per_session(uidrive, home):
    """Two MCP servers: the second never saw the first's refs."""
    async with stdio_client(server(uidrive, home)) as (r1, w1), stdio_client(server(uidrive, home)) as (r2, w2):
        async with ClientSession(r1, w1) as one, ClientSession(r2, w2) as two:
            await one.initialize()
            await two.initialize()
            await one.call_tool("open", {"demo": True})
            await two.call_tool("open", {"demo": True})
            await one.call_tool("snapshot", {"interactive": True})
            answer = await two.call_tool("press", {"target": "@e2"})
            check(answer.is_error and "stale_ref" in text_of(answer), "refs of one MCP session mean nothing in another")
            answer = await one.call_tool("press", {"target": "@e2"})
            check(not answer.is_error, "the session that took the snapshot can use its refs")


async def observation_only(uidrive, home):
    """A host restricts the session to reading, and gives it the app to read."""
    socket_path = os.path.join(home, "demo.sock")
    demo = subprocess.Popen([uidrive, "serve", "--demo", "--socket", socket_path], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while not os.path.exists(socket_path):
            if demo.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("uidrive serve --demo did not come up")
            await asyncio.sleep(0.02)
        params = server(uidrive, home, "--socket", socket_path, env={"UIDRIVE_MCP_READ_ONLY": "1"})
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
                check("snapshot" in tools and "windows" in tools, "observation-only keeps the reading tools")
                check(not tools & {"press", "fill", "open", "close", "batch"}, f"observation-only offers no acting tool ({sorted(tools)})")
                snap = await session.call_tool("snapshot", {"interactive": True})
                check(not snap.is_error and '[button] "Add"' in text_of(snap), "observation-only reads the app it was given")
                refused = await session.call_tool("press", {"target": "@e2"})
                check(refused.is_error, "an acting tool is refused in an observation-only session")
                again = await session.call_tool("snapshot", {})
                check('"Count: 0"' in text_of(again), "nothing was pressed")
    finally:
        demo.terminate()
        demo.wait(timeout=10)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("uidrive")
    parser.add_argument("--button", default="Add")
    parser.add_argument("--expect", default='"Count: 1"')
    parser.add_argument("--then", action="append", default=[], help="a batch step to run after the press")
    parser.add_argument("--then-expect", default="", help="what the batch's diff must show")
    parser.add_argument("--app", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="udmcp", dir="/tmp") as home:
        await full_session(args.uidrive, home, args.app, args.button, args.expect, args.then, args.then_expect)
        if not args.app:
            await refs_are_per_session(args.uidrive, home)
            await observation_only(args.uidrive, home)
    print(f"{CHECKS} passed, 0 failed")


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except AssertionError as failure:
        print(f"not ok - {failure}")
        print(f"{CHECKS - 1} passed, 1 failed")
        sys.exit(1)
