"""A fresh agent that knows nothing of moot but the address of its /skill.md page: it reads
the page, takes the token address, the sets' addresses and the tool names from it, and plays a
chess game against the computer and a Werewolf practice match to their ends, over the Python
`mcp` package (MCP 2026-07-28, stateless).
Usage: skill_agent.py SKILL_URL
Prints one JSON object: what it read and how each game ended. Exits non-zero on any failure.
"""
import asyncio
import json
import re
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def read_page(text):
    """The token address, each set's address with its tools, and createGame's example."""
    token_url = re.search(r"`POST (\S+/agents)`", text).group(1)
    sets = {}
    for row in re.finditer(r"^\| `(http\S+/mcp/\S+)` \| .* \| (.*) \|$", text, re.M):
        sets[row.group(1)] = re.findall(r"`([^`]+)`", row.group(2))
    example = json.loads(re.search(r"`createGame` with `(\{.*?\})`", text).group(1))
    return token_url, sets, example


def address_of(sets, tool):
    return next(url for url, tools in sets.items() if tool in tools)


# The page's read budget: reads kept half a second apart. Every RATE_LIMITED refusal met is
# counted (and waited out as the page says): following the page, there should be none.
READS = {"et.werewolf.match.get_state", "et.werewolf.match.events.get",
         "et.werewolf.matches.list", "et.werewolf.queue.status"}
last_read = [0.0]
rate_limited = [0]


async def tool(session, name, args):
    loop = asyncio.get_running_loop()
    while True:
        if name in READS:
            await asyncio.sleep(max(0.0, last_read[0] + 0.5 - loop.time()))
            last_read[0] = loop.time()
        result = await session.call_tool(name, args, read_timeout_seconds=60)
        data = result.structured_content
        if result.is_error and data and data.get("error", {}).get("code") == "RATE_LIMITED":
            rate_limited[0] += 1
            await asyncio.sleep(data["error"].get("retryAfterMs", 500) / 1000)
            continue
        return data, result.is_error


async def chess(http, url, example):
    async with streamable_http_client(url, http_client=http) as streams:
        async with ClientSession(streams[0], streams[1]) as s:
            await s.discover()
            state, failed = await tool(s, "createGame", example)
            assert not failed, state
            game, moves = state["game_id"], 0
            while state["status"] != "game_over":
                if state["status"] == "your_turn":
                    state, failed = await tool(s, "finishTurn", {"game_id": game, "move": state["legal_moves"][0]})
                    moves += 1
                else:
                    state, failed = await tool(s, "waitForNextTurn", {"game_id": game})
                assert not failed, state
                assert moves < 400, "the game never ended"
            return {"moves": moves, "result": state["result"]}


async def werewolf(http, url, names):
    p = "et.werewolf."
    async with streamable_http_client(url, http_client=http) as streams:
        async with ClientSession(streams[0], streams[1]) as s:
            await s.discover()
            started, failed = await tool(s, p + "practice.start", {})
            assert not failed, started
            mid = started["matchAssignment"]["matchId"]
            cursor, spoke = None, set()
            for _ in range(3000):
                got, _ = await tool(s, p + "match.get_state", {"matchId": mid})
                state = got["state"]
                if state["phase"] == "ENDED":
                    return {"winner": state.get("winningTeam"), "role": state["you"]["role"]}
                req = state["you"]["requiredAction"]
                kind, targets = req["type"], req["allowedTargets"]
                step = None
                if state["phase"] == "LOBBY":
                    step = (p + "match.ready", {"matchId": mid})
                elif req["alreadySubmitted"]:
                    step = None
                elif kind in ("WOLF_KILL", "SEER_INSPECT", "DOCTOR_PROTECT") and targets:
                    night = {"WOLF_KILL": "wolf_kill", "SEER_INSPECT": "seer_inspect", "DOCTOR_PROTECT": "doctor_protect"}
                    step = (p + "match.night." + night[kind], {"matchId": mid, "targetPlayerId": targets[0]})
                elif kind == "SPEAK_OPENING" or (kind == "SPEAK_DISCUSSION" and state["dayNumber"] not in spoke):
                    spoke.add(state["dayNumber"])
                    step = (p + "match.say_public", {"matchId": mid, "text": "I read the skill page."})
                elif kind == "VOTE" and targets:
                    step = (p + "match.vote", {"matchId": mid, "targetPlayerId": targets[0]})
                if step:
                    assert step[0] in names, f"{step[0]} is not on the page"
                    await tool(s, *step)  # a refusal means the match moved on: read again
                args = {"matchId": mid, "waitSeconds": 10}
                if cursor:
                    args["afterEventId"] = cursor
                ev, _ = await tool(s, p + "match.events.get", args)
                cursor = ev["nextCursor"] or cursor
            raise AssertionError("the practice match did not end")


async def main():
    async with httpx2.AsyncClient(timeout=60) as http:
        page = (await http.get(sys.argv[1])).text
        token_url, sets, example = read_page(page)
        me = (await http.post(token_url, json={"name": "Skilly"})).json()
        http.headers["Authorization"] = f"Bearer {me['token']}"
        names = {t for tools in sets.values() for t in tools}
        chess_url = address_of(sets, "createGame")
        werewolf_url = address_of(sets, "et.werewolf.practice.start")
        played = await chess(http, chess_url, example)
        match = await werewolf(http, werewolf_url, names)
        print(json.dumps({"chess_url": chess_url, "werewolf_url": werewolf_url, "example": example,
                          "chess": played, "werewolf": match, "rate_limited": rate_limited[0]}))


asyncio.run(main())
