"""Every refusal of the thirteen Werewolf tools has their shape: an `isError` result whose
structuredContent conforms to the tool's outputSchema (`ok: false`, `serverTime`, an `error`
with a code from the stable list). Called by tests/it/side_channels.rs with the server's base
URL, an agent's token and a running match's id; prints what it checked as JSON."""

import json
import sys
import urllib.request

import jsonschema

STABLE = {
    "WRONG_PHASE", "WRONG_ROLE", "INVALID_TARGET", "TARGET_DEAD", "DOCTOR_REPEAT_TARGET",
    "ALREADY_SUBMITTED", "NOT_YOUR_TURN", "RATE_LIMITED", "NOT_IN_MATCH", "MATCH_NOT_FOUND",
    "ALREADY_IN_MATCH", "QUEUE_NOT_SUPPORTED", "INVALID_CURSOR", "IDEMPOTENCY_KEY_REUSED",
    # moot's own, listed in the README
    "INVALID_REQUEST", "STORAGE_UNAVAILABLE", "INTERNAL",
}

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "refusals", "version": "1"},
}


def call(base, token, method, params):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}
    headers = {
        "authorization": f"Bearer {token}",
        "accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    if method == "tools/call":
        headers["Mcp-Name"] = params["name"]
    # The Werewolf tools are served at their set's own address.
    req = urllib.request.Request(f"{base}/mcp/werewolf", data=json.dumps(body).encode(),
                                 headers={**headers, "content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        text = r.read().decode()
    for line in text.splitlines():
        if line.startswith("data: "):
            text = line[len("data: "):]
            break
    return json.loads(text)["result"]


def main():
    base, token, match_id = sys.argv[1:4]
    tools = {t["name"]: t for t in call(base, token, "tools/list", {})["tools"]
             if t["name"].startswith("et.werewolf.") and t["name"] in SEED}
    assert len(tools) == 13, sorted(tools)
    # One bad call of each kind the schema or the rules refuse, per tool.
    bad = {name: [{"matchId": match_id, "noSuchField": 1}, {"matchId": 7}] for name in tools}
    bad["et.werewolf.match.events.get"] += [{"matchId": match_id, "limit": 0},
                                            {"matchId": match_id, "limit": 10000},
                                            {"matchId": match_id, "afterEventId": "e999999"}]
    bad["et.werewolf.match.say_public"] += [{"matchId": match_id, "text": "x" * 501}]
    bad["et.werewolf.queue.join"] = [{"noSuchField": 1}, {"queueId": "elsewhere"}]
    bad["et.werewolf.queue.leave"] = [{"noSuchField": 1}, {"queueId": "elsewhere"}]
    bad["et.werewolf.queue.status"] = [{"noSuchField": 1}, {"queueId": "elsewhere"}]
    bad["et.werewolf.matches.list"] = [{"noSuchField": 1}, {"limit": 0}, {"status": "SOON"}]
    codes = {}
    for name, calls in sorted(bad.items()):
        schema = tools[name]["outputSchema"]
        for args in calls:
            r = call(base, token, "tools/call", {"name": name, "arguments": args})
            where = f"{name} {args}: {json.dumps(r)[:400]}"
            assert r.get("isError") is True, where
            sc = r.get("structuredContent")
            assert isinstance(sc, dict), where
            jsonschema.validate(sc, schema)
            assert sc["ok"] is False, where
            code = sc["error"]["code"]
            assert code in STABLE, where
            assert json.loads(r["content"][0]["text"]) == sc, where
            codes.setdefault(name, []).append(code)
    print(json.dumps({"tools": len(tools), "codes": codes}))


SEED = {
    "et.werewolf.queue.join", "et.werewolf.queue.leave", "et.werewolf.queue.status",
    "et.werewolf.matches.list", "et.werewolf.match.get_state", "et.werewolf.match.events.get",
    "et.werewolf.match.ready", "et.werewolf.match.say_public", "et.werewolf.match.vote",
    "et.werewolf.match.night.wolf_kill", "et.werewolf.match.night.seer_inspect",
    "et.werewolf.match.night.doctor_protect", "et.werewolf.match.night.wolf_chat",
}

if __name__ == "__main__":
    main()
