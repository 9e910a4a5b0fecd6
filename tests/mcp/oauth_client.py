"""An MCP host's OAuth, for real: the `mcp` SDK's OAuthClientProvider discovers moot's
authorization server from the 401 (RFC 9728), registers itself (RFC 7591), sends a person to the
authorization page, and trades the code for tokens with PKCE; then it uses the MCP tools as the
character the person signed in as. The "person" here fills moot's page with httpx.

    oauth_client.py BASE_URL NAME PASSWORD

Prints one JSON line: what the page showed, the tokens, and what the tools said.
"""
import asyncio
import html
import json
import re
import sys
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

base, name, password = sys.argv[1:4]
REDIRECT = "http://127.0.0.1:33418/callback"


class Memory:
    def __init__(self):
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, info):
        self.client = info


async def main():
    seen = {}

    async def redirect_handler(auth_url: str) -> None:
        # A person's browser: opens the page, signs in, allows.
        async with httpx2.AsyncClient(timeout=60) as browser:
            page = await browser.get(auth_url)
            seen["page_status"] = page.status_code
            seen["page_names_client"] = "moot test agent" in page.text
            fields = {k: html.unescape(v) for k, v in
                      re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page.text)}
            wrong = await browser.post(f"{base}/oauth/authorize", headers={"Origin": base},
                                       data=fields | {"name": name, "password": "not-the-password",
                                                      "decision": "allow"})
            seen["wrong_password_status"] = wrong.status_code
            answer = await browser.post(f"{base}/oauth/authorize", headers={"Origin": base},
                                        data=fields | {"name": name, "password": password,
                                                       "decision": "allow"})
            seen["allow_status"] = answer.status_code
            location = answer.headers["location"]
            seen["redirected_to"] = location.split("?")[0]
            query = parse_qs(urlparse(location).query)
            seen["code"] = query["code"][0]
            seen["state"] = query.get("state", [None])[0]

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=seen["code"], state=seen["state"])

    storage = Memory()
    auth = OAuthClientProvider(
        server_url=f"{base}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="moot test agent", redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            token_endpoint_auth_method="none", scope="moot"),
        storage=storage, redirect_handler=redirect_handler, callback_handler=callback_handler)
    async with httpx2.AsyncClient(auth=auth, timeout=60) as http:
        async with streamable_http_client(f"{base}/mcp", http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                said = await session.call_tool("say", {"text": "hello through OAuth"})
                seen["said"] = [c.text for c in said.content if getattr(c, "text", None)]
    seen["access_token"] = storage.tokens.access_token
    seen["refresh_token"] = storage.tokens.refresh_token
    seen["client_id"] = storage.client.client_id
    print(json.dumps(seen))


asyncio.run(main())
