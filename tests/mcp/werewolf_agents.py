"""Eight agents play one Werewolf match through the Python `mcp` package, over Streamable HTTP
(MCP 2026-07-28, stateless), using only the thirteen Werewolf tools. Each signs the queue, then follows its
brief (`requiredAction`) from `get_state`, and waits for news with `events.get` (waitSeconds)
instead of spinning. Every structuredContent is checked against the tool's outputSchema.

Usage: werewolf_agents.py URL TOKEN1,TOKEN2,...,TOKEN8
Prints one JSON object: the winner, the phases each agent saw (in its state or its event feed)
and how many actions each agent took.
Exits non-zero on any failure.
"""

import asyncio
import json
import sys

import httpx2
import jsonschema
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

P = "et.werewolf."


async def call(session, tools, name, args, may_fail=False):
    while True:
        result = await session.call_tool(name, args)
        data = result.structured_content
        # Too fast (reads are rate-limited per identity): wait as long as the server says, then ask again.
        if result.is_error and data and data["error"]["code"] == "RATE_LIMITED":
            await asyncio.sleep(data["error"].get("retryAfterMs", 500) / 1000)
            continue
        break
    schema = tools[name].output_schema
    if data is not None and schema is not None:
        jsonschema.validate(data, schema)
    # The text content carries the same JSON, for clients that read only text.
    if data is not None and json.loads(result.content[0].text) != data:
        raise AssertionError(f"{name}: text and structuredContent differ")
    if result.is_error and not may_fail:
        raise AssertionError(f"{name} {args} failed: {result.content[0].text}")
    return data, result.is_error


async def play(url, token, index, joined, out):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                await s.discover()
                tools = {t.name: t for t in (await s.list_tools()).tools}
                # Sign in turn, so seats follow the order.
                while joined[0] != index:
                    await asyncio.sleep(0.01)
                q, _ = await call(s, tools, P + "queue.join", {"idempotencyKey": f"join-agent-{index}"})
                joined[0] += 1
                while True:
                    st, _ = await call(s, tools, P + "queue.status", {})
                    if st["matchAssignment"]:
                        break
                    await asyncio.sleep(0.05)
                mid = st["matchAssignment"]["matchId"]
                phases, acts, cursor, spoke = set(), 0, None, set()
                for _ in range(2000):
                    got, _ = await call(s, tools, P + "match.get_state", {"matchId": mid})
                    state = got["state"]
                    phases.add(state["phase"])
                    if state["phase"] == "ENDED":
                        out[index] = {"winner": state.get("winningTeam"), "phases": sorted(phases), "acts": acts}
                        return
                    you = state["you"]
                    req = you["requiredAction"]
                    kind, targets = req["type"], req["allowedTargets"]
                    step = None
                    if state["phase"] == "LOBBY":
                        step = (P + "match.ready", {"matchId": mid})
                    elif req["alreadySubmitted"]:
                        step = None
                    elif kind == "WOLF_KILL" and targets:
                        step = (P + "match.night.wolf_kill", {"matchId": mid, "targetPlayerId": targets[0]})
                    elif kind == "SEER_INSPECT" and targets:
                        step = (P + "match.night.seer_inspect", {"matchId": mid, "targetPlayerId": targets[-1]})
                    elif kind == "DOCTOR_PROTECT" and targets:
                        step = (P + "match.night.doctor_protect", {"matchId": mid, "targetPlayerId": targets[0]})
                    elif kind == "SPEAK_OPENING":
                        step = (P + "match.say_public", {"matchId": mid, "text": f"Agent {index} here, nothing to hide."})
                    elif kind == "SPEAK_DISCUSSION" and (state["dayNumber"], "d") not in spoke:
                        spoke.add((state["dayNumber"], "d"))
                        step = (P + "match.say_public", {"matchId": mid, "text": "Let us vote carefully."})
                    elif kind == "VOTE":
                        step = (P + "match.vote", {"matchId": mid, "targetPlayerId": targets[0] if targets else None,
                                                    "reason": "first on my list"})
                    if step:
                        # The phase may move on between reading and acting: a clear, coded refusal.
                        data, failed = await call(s, tools, step[0], step[1], may_fail=True)
                        if failed:
                            code = data["error"]["code"]
                            if code not in ("WRONG_PHASE", "NOT_YOUR_TURN", "RATE_LIMITED", "ALREADY_SUBMITTED", "TARGET_DEAD"):
                                raise AssertionError(f"{step}: {data}")
                        else:
                            acts += 1
                    # Wait for news rather than spin.
                    args = {"matchId": mid, "limit": 200, "waitSeconds": 2}
                    if cursor:
                        args["afterEventId"] = cursor
                    ev, _ = await call(s, tools, P + "match.events.get", args)
                    cursor = ev["nextCursor"] or cursor
                    for e in ev["events"]:
                        # The feed is read whole, page after page, so it shows every phase even
                        # when the state reads skip one (a night lasts under a second at this speed).
                        if e["type"] == "PHASE_CHANGED":
                            phases.add(e["payload"]["to"])
                        if e["visibility"] != "PUBLIC" and e["type"] in ("WOLF_CHAT_MESSAGE", "WOLF_KILL_SELECTED") \
                                and you["role"] != "WEREWOLF":
                            raise AssertionError(f"agent {index} ({you['role']}) read {e}")
                raise AssertionError(f"agent {index}: the match did not end")


async def main():
    url, tokens = sys.argv[1], sys.argv[2].split(",")
    joined, out = [0], {}
    await asyncio.gather(*(play(url, t, i, joined, out) for i, t in enumerate(tokens)))
    winners = {o["winner"] for o in out.values()}
    if len(winners) != 1:
        raise AssertionError(f"agents saw different winners: {out}")
    print(json.dumps({"winner": winners.pop(), "agents": out}))


asyncio.run(main())
