"""An agent driving moot through the Python `mcp` package (a client nobody here wrote).

Usage:
  agent.py http URL TOKEN REVISION SCENARIO
  agent.py stdio MOOT_BINARY WORLD_DIR REVISION SCENARIO

REVISION is `initialize` (the 2025-11-25 handshake) or `discover` (2026-07-28, stateless).
SCENARIO is:
  tools     list the tools; call a few, checking each structuredContent against the tool's
            outputSchema; print one JSON object with what was seen
  converse  say "hello from mcp", then poll `events` until a telnet user's words arrive;
            print them as JSON
Exits non-zero on any failure.
"""

import asyncio
import json
import sys

import httpx2
import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


def check(tools, name, result):
    """The result's structuredContent must match the tool's outputSchema."""
    tool = tools[name]
    if result.is_error:
        raise AssertionError(f"{name} failed: {result.content}")
    if tool.output_schema is not None:
        if result.structured_content is None:
            raise AssertionError(f"{name} returned no structuredContent")
        jsonschema.validate(result.structured_content, tool.output_schema)
    return result.structured_content


async def scenario_tools(session):
    listed = await session.list_tools()
    tools = {t.name: t for t in listed.tools}
    seen = {
        "tools": sorted(tools),
        "read_only": sorted(n for n, t in tools.items() if t.annotations and t.annotations.read_only_hint),
        "open_world": sorted(n for n, t in tools.items() if t.annotations and t.annotations.open_world_hint),
    }
    seen["look"] = check(tools, "look", await session.call_tool("look", {}))
    seen["who"] = check(tools, "who", await session.call_tool("who", {}))
    seen["help"] = check(tools, "help", await session.call_tool("help", {"topic": "say"}))
    seen["go"] = check(tools, "go", await session.call_tool("go", {"exit": "north"}))
    seen["say"] = check(tools, "say", await session.call_tool("say", {"text": "testing"}))
    seen["events"] = check(tools, "events", await session.call_tool("events", {}))
    seen["examine"] = check(tools, "examine", await session.call_tool("examine", {"target": "board"}))
    bad = await session.call_tool("go", {"exit": "up"})
    seen["bad_exit"] = {"isError": bad.is_error, "text": bad.content[0].text}
    wrong = await session.call_tool("say", {"words": 3})
    seen["bad_args"] = {"isError": wrong.is_error, "text": wrong.content[0].text}
    return seen


async def scenario_converse(session):
    said = await session.call_tool("say", {"text": "hello from mcp"})
    if said.is_error:
        raise AssertionError(said.content)
    for _ in range(200):
        got = await session.call_tool("events", {})
        lines = got.structured_content["events"]
        heard = [l for l in lines if "says," in l]
        if heard:
            return {"heard": heard}
        await asyncio.sleep(0.05)
    raise AssertionError("nobody spoke")


async def run(session, revision, scenario):
    if revision == "initialize":
        await session.initialize()
    else:
        await session.discover()
    version, server = session.protocol_version, session.server_info
    out = await {"tools": scenario_tools, "converse": scenario_converse}[scenario](session)
    out["protocol_version"] = version
    out["server"] = {"name": server.name, "version": server.version} if server else None
    print(json.dumps(out))


async def main():
    transport, a, b, revision, scenario = sys.argv[1:6]
    if transport == "http":
        headers = {"Authorization": f"Bearer {b}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with streamable_http_client(a, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await run(session, revision, scenario)
    else:
        params = StdioServerParameters(command=a, args=["mcp", "--world", b])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await run(session, revision, scenario)


if __name__ == "__main__":
    asyncio.run(main())
