"""An agent driving moot through the Python `mcp` package (a client nobody here wrote).

Usage:
  agent.py http URL TOKEN REVISION SCENARIO
  agent.py stdio MOOT_BINARY WORLD_DIR REVISION SCENARIO
  agent.py bridge MOOT_BINARY "URL TOKEN" REVISION SCENARIO   (moot mcp --server URL --token TOKEN)

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


async def tools_of(session):
    return {t.name: t for t in (await session.list_tools()).tools}


async def call(session, tools, name, args):
    return check(tools, name, await session.call_tool(name, args, read_timeout_seconds=60))


async def scenario_chess(session):
    """A whole game against the computer at difficulty 1, moving the first legal move."""
    tools = await tools_of(session)
    created = await call(session, tools, "createGame", {"type": "computer", "color": "white", "difficulty": 1})
    game = created["game_id"]
    state = created
    moves = 0
    while state["status"] != "game_over":
        if state["status"] == "your_turn":
            state = await call(session, tools, "finishTurn", {"game_id": game, "move": state["legal_moves"][0]})
            moves += 1
        else:
            state = await call(session, tools, "waitForNextTurn", {"game_id": game})
        if moves > 400:
            raise AssertionError("the game never ended")
    return {"game_id": game, "moves": moves, "result": state["result"]}


async def scenario_blackjack(session):
    """100 hands, hitting below 17; every answer in the tools' fixed text format."""
    tools = await tools_of(session)
    results = {}
    for _ in range(100):
        hand = await call(session, tools, "blackjack_deal", {})
        while hand["phase"] == "playing" and hand["player_total"] < 17:
            hand = await call(session, tools, "blackjack_hit", {})
        if hand["phase"] == "playing":
            raw = await session.call_tool("blackjack_stand", {})
            hand = check(tools, "blackjack_stand", raw)
            text = raw.content[0].text.split("\n")
            if not (text[0].startswith("Dealer: ") and text[1].startswith("Player: ") and text[2] == hand["message"]):
                raise AssertionError(f"not the blackjack text format: {text}")
            if "X" in text[0]:
                raise AssertionError("the hidden card is still hidden after standing")
        results[hand["message"]] = results.get(hand["message"], 0) + 1
    idle = await session.call_tool("blackjack_hit", {})
    return {"results": results, "hit_after_end": idle.content[0].text, "hit_after_end_is_error": idle.is_error}


async def scenario_ui(session):
    """createGame with showUi: the result carries the board as an MCP Apps resource."""
    tools = await tools_of(session)
    raw = await session.call_tool("createGame", {"type": "computer", "color": "white", "showUi": True, "difficulty": 1})
    made = check(tools, "createGame", raw)
    uri = made["ui"]
    embedded = [c for c in raw.content if c.type == "resource"]
    listed = await session.list_resources()
    read = await session.read_resource(uri)
    page = read.contents[0]
    return {
        "uri": uri,
        "meta": (raw.meta or {}).get("ui"),
        "embedded_mime": embedded[0].resource.mime_type if embedded else None,
        "listed": [str(r.uri) for r in listed.resources],
        "read_mime": page.mime_type,
        "html": page.text,
    }


async def scenario_host(session):
    """Create an agent game as black, wait (through timeouts) for whoever joins to move as
    white, then answer e7e5."""
    tools = await tools_of(session)
    made = await call(session, tools, "createGame", {"type": "agent", "color": "black"})
    game = made["game_id"]
    timeouts = 0
    for _ in range(60):
        raw = await session.call_tool("waitForNextTurn", {"game_id": game}, read_timeout_seconds=60)
        state = check(tools, "waitForNextTurn", raw)
        if state["status"] == "timeout":
            timeouts += 1
            if raw.content[0].text != "Timeout: No move received yet. Please call this tool again immediately.":
                raise AssertionError(raw.content[0].text)
            continue
        if state["status"] == "your_turn":
            break
    reply = await call(session, tools, "finishTurn", {"game_id": game, "move": "e7e5"})
    return {"game_id": game, "timeouts": timeouts, "opponent_played": state["last_move"], "after": reply["status"]}


async def scenario_progress(session):
    """A long poll with a progress token: progress arrives about every 10 s while it waits."""
    tools = await tools_of(session)
    made = await call(session, tools, "createGame", {"type": "agent", "color": "black"})
    notes = []

    async def on_progress(progress, total, message):
        notes.append({"progress": progress, "message": message})

    raw = await session.call_tool("waitForNextTurn", {"game_id": made["game_id"]}, read_timeout_seconds=60, progress_callback=on_progress)
    return {"progress": notes, "status": check(tools, "waitForNextTurn", raw)["status"]}


async def run(session, revision, scenario):
    if revision == "initialize":
        await session.initialize()
    else:
        await session.discover()
    version, server = session.protocol_version, session.server_info
    out = await {"tools": scenario_tools, "converse": scenario_converse, "chess": scenario_chess, "blackjack": scenario_blackjack, "ui": scenario_ui, "host": scenario_host, "progress": scenario_progress}[scenario](session)
    out["protocol_version"] = version
    out["server"] = {"name": server.name, "version": server.version} if server else None
    print(json.dumps(out))


async def duel(url, token_a, token_b):
    """Two agents play each other: A creates an agent game, B joins; each waits with
    waitForNextTurn while the other moves. Reports how soon each waiter woke after the move."""
    import time

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token_a}"}, timeout=60) as ha, \
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token_b}"}, timeout=60) as hb:
        async with streamable_http_client(url, http_client=ha) as sa, streamable_http_client(url, http_client=hb) as sb:
            async with ClientSession(sa[0], sa[1]) as a, ClientSession(sb[0], sb[1]) as b:
                await a.discover()
                await b.initialize()
                ta, tb = await tools_of(a), await tools_of(b)
                game = (await call(a, ta, "createGame", {"type": "agent", "color": "white"}))["game_id"]
                joined = await call(b, tb, "joinGame", {"game_id": game})
                wakeups = []
                players = {"white": (a, ta), "black": (b, tb)}
                state = await call(a, ta, "waitForNextTurn", {"game_id": game})
                turn, plies = "white", 0
                while state["status"] != "game_over" and plies < 40:
                    mover, mtools = players[turn]
                    other = "black" if turn == "white" else "white"
                    waiter, wtools = players[other]
                    waiting = asyncio.create_task(call(waiter, wtools, "waitForNextTurn", {"game_id": game}))
                    await asyncio.sleep(0.2)  # the waiter is blocked in the call by now
                    moved = await call(mover, mtools, "finishTurn", {"game_id": game, "move": state["legal_moves"][0]})
                    moved_at = time.monotonic()
                    state = await waiting
                    wakeups.append(time.monotonic() - moved_at)
                    if moved["status"] == "game_over":
                        break
                    turn, plies = other, plies + 1
                return {"game_id": game, "joined_as": joined["your_color"], "plies": plies + 1,
                        "max_wakeup_ms": max(wakeups) * 1000, "statuses": sorted({state["status"]})}


async def rps(url, token_a, token_b, id_a, id_b):
    """A round of rock-paper-scissors through the session tools."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token_a}"}, timeout=60) as ha, \
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token_b}"}, timeout=60) as hb:
        async with streamable_http_client(url, http_client=ha) as sa, streamable_http_client(url, http_client=hb) as sb:
            async with ClientSession(sa[0], sa[1]) as a, ClientSession(sb[0], sb[1]) as b:
                await a.discover()
                await b.discover()
                ta, tb = await tools_of(a), await tools_of(b)
                made = await call(a, ta, "session_create", {"template": "rps.v1", "participants": {"player_1": id_a, "player_2": id_b}})
                sid = made["session_id"]
                assert made["status"] == "waiting", made
                began = await call(b, tb, "session_accept", {"session_id": sid})
                assert began["status"] == "active", began
                await call(a, ta, "session_act", {"session_id": sid, "action": "paper"})
                peek = await call(b, tb, "session_state", {"session_id": sid})
                again = await a.call_tool("session_act", {"session_id": sid, "action": "rock"})
                done = await call(b, tb, "session_act", {"session_id": sid, "action": "scissors"})
                log = await call(a, ta, "session_log", {"session_id": sid})
                return {"hidden": peek["state"]["choices"]["player_1"], "again": again.content[0].text,
                        "result": done["state"]["result"], "log": [e["action"] for e in log["actions"]]}


async def leave(url, token):
    """An agent opens a session (2025-11-25), looks around, and ends it as the SDK does when its
    client closes (HTTP DELETE). Prints what the SDK logged as a warning or worse (it logs
    "Session termination failed: 202" when a server answers the end with anything but 200 or
    204)."""
    import logging

    warned = []

    class Keep(logging.Handler):
        def emit(self, record):
            if record.levelno >= logging.WARNING:
                warned.append(record.getMessage())

    logging.getLogger().addHandler(Keep())
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                tools = await tools_of(session)
                here = await call(session, tools, "look", {})
    return {"looked": here is not None, "warnings": warned}


async def main():
    if sys.argv[1] == "leave":
        print(json.dumps(await leave(*sys.argv[2:4])))
        return
    if sys.argv[1] == "duel":
        print(json.dumps(await duel(*sys.argv[2:5])))
        return
    if sys.argv[1] == "rps":
        print(json.dumps(await rps(*sys.argv[2:7])))
        return
    transport, a, b, revision, scenario = sys.argv[1:6]
    # Over stdio, the sets of tools to serve (`moot mcp --tools chess`); the town's if none.
    tools = ["--tools", sys.argv[6]] if len(sys.argv) > 6 else []
    if transport == "http":
        headers = {"Authorization": f"Bearer {b}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with streamable_http_client(a, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await run(session, revision, scenario)
    elif transport == "bridge":
        url, token = b.split(" ")
        params = StdioServerParameters(command=a, args=["mcp", "--server", url, "--token", token])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await run(session, revision, scenario)
    else:
        params = StdioServerParameters(command=a, args=["mcp", "--world", b, *tools])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await run(session, revision, scenario)


if __name__ == "__main__":
    asyncio.run(main())
