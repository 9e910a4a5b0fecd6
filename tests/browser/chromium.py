"""What the browser tests share: Debian's Chromium for Playwright, and one stateless MCP call."""

import json

CHROMIUM = "/usr/bin/chromium"
# Without these, Chromium reaches for Google's hosts at start, and this machine's closed
# network refuses it many times over.
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


async def mcp(http, base, token, name, args, path="/mcp/werewolf"):
    """One stateless MCP 2026-07-28 tool call at `path` (the Werewolf tools' address unless
    told); its result."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "moot browser tests", "version": "1"}}
    r = await http.post(f"{base}{path}", headers={
        "Authorization": f"Bearer {token}", "accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
              "params": {"name": name, "arguments": args, "_meta": meta}})
    text = next((l[6:] for l in r.text.splitlines() if l.startswith("data: ")), r.text)
    return json.loads(text)["result"]
