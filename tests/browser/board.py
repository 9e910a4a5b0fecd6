"""The interactive chess board of `createGame` with `showUi`, driven in a real Chromium by Playwright.

Usage: board.py BASE_URL [SHOTS_DIR]

BASE_URL is moot's HTTP address (http://127.0.0.1:PORT). The script makes its own agents
over REST, and plays three games on the one page:

  host     the agent asks createGame with showUi over MCP and gets the `ui://chess/<id>`
           resource. A minimal MCP Apps host puts it in an iframe; a piece is dragged and
           Confirm clicked; the host sees the page's `tools/call` (and the older
           `{type: 'action'}` message), makes the call over MCP, and hands the result back
           as `ui/notifications/tool-result`, which redraws the board.
  browser  the same game at /chess/<id> in a plain tab: the player types their token, the
           page reads the game over REST, a move is made by clicking two squares, and an
           illegal one typed into the UCI field is refused with the server's message; then
           the page follows the computer's answer by itself.
  claim    a REST game between two agents from a set position: "Claim Checkmate" with a move
           that does not mate is refused in the chess tools' words, and with Qxf7# ends the game.
  signed   a person signed in on the web (an agent's name and token as the password) plays
           from the page without an API token; once the game ends the move form goes.
  posted   a page of another origin opens the game's page and posts it a made-up board,
           which it does not draw; from moot's own origin, the same message is drawn.

Prints one JSON object with what was seen; exits non-zero on any failure.
"""

import asyncio
import json
import sys
import tempfile

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from playwright.async_api import async_playwright

from chromium import CHROMIUM, FLAGS


HOST_PAGE = """<!doctype html><title>a minimal MCP Apps host</title>
<iframe id="app" width="600" height="560"></iframe>
<script>
  window.got = [];
  addEventListener("message", e => { if (e.source === document.getElementById("app").contentWindow) got.push(e.data); });
</script>"""


def piece(frame, square):
    return frame.locator(f'[data-square="{square}"]').text_content()


# Where the screenshots go: the second argument (the tests give target/screenshots).
SHOTS = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()

async def wait_for(predicate, what, tries=100):
    for _ in range(tries):
        value = await predicate()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


async def as_host(browser, session):
    raw = await session.call_tool("createGame", {"type": "computer", "color": "white", "showUi": True, "difficulty": 1})
    if raw.is_error:
        raise AssertionError(raw.content)
    made = raw.structured_content
    game, uri = made["game_id"], made["ui"]
    html = (await session.read_resource(uri)).contents[0].text

    page = await browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.set_content(HOST_PAGE)
    await page.evaluate("html => { document.getElementById('app').srcdoc = html; }", html)
    frame = page.frame_locator("#app")
    await frame.locator('[data-square="e2"]').wait_for()
    start = {"e2": await piece(frame, "e2"), "e4": await piece(frame, "e4")}

    # HTML5 drag and drop, as a person would move a piece.
    await frame.locator('[data-square="e2"]').drag_to(frame.locator('[data-square="e4"]'))
    typed = await frame.locator("#uci").input_value()
    await frame.locator("#confirm").click()
    got = await wait_for(lambda: page.evaluate("got.length >= 3 && got"), "the page's three messages")
    call = next(m for m in got if m.get("method") == "tools/call")
    seed = next(m for m in got if m.get("type") == "action")
    initialized = any(m.get("method") == "ui/initialize" for m in got)

    # The host does what the page asked, over MCP, and hands the page the result.
    result = await session.call_tool(call["params"]["name"], call["params"]["arguments"])
    if result.is_error:
        raise AssertionError(result.content)
    await page.evaluate(
        """sc => document.getElementById('app').contentWindow.postMessage(
               { jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { structuredContent: sc } }, '*')""",
        result.structured_content,
    )
    await wait_for(lambda: piece(frame, "e4"), "the board to redraw")  # empty until then
    after = {"e2": await piece(frame, "e2"), "e4": await piece(frame, "e4")}
    await page.screenshot(path=f"{SHOTS}/moot-board-host.png")
    await page.close()
    return game, {
        "start": start, "typed": typed, "call": call, "seed_message": seed, "initialized": initialized,
        "result_last_move": result.structured_content["last_move"], "after": after, "errors": errors,
    }


async def in_browser(browser, base, token, game, session):
    # The computer answers e2e4 first; the page reads whatever the server says.
    state = (await session.call_tool("waitForNextTurn", {"game_id": game})).structured_content
    page = await browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    resp = await page.goto(f"{base}/chess/{game}")
    await page.locator('[data-square="g1"]').wait_for()
    await page.fill("#token", token)
    await page.dispatch_event("#token", "change")
    await wait_for(lambda: page.locator("#status").text_content(), "the page to read the game")
    read = {"status": await page.locator("#status").text_content(), "colour": await page.locator("#colour").text_content()}

    # An illegal move typed in: the server refuses it and the board stays as it was.
    await page.fill("#uci", "e4e6")
    await page.click("#confirm")
    refused = await wait_for(lambda: status_other_than(page, read["status"]), "the refusal")
    kept = {"e4": await piece(page, "e4"), "e6": await piece(page, "e6")}

    # A move by clicking two squares.
    await page.click('[data-square="g1"]')
    await page.click('[data-square="f3"]')
    typed = await page.locator("#uci").input_value()
    # Every status the page shows from now on, however briefly (the computer's answer is
    # pushed to the page, and may follow the move within milliseconds).
    await page.evaluate("""() => { window.statuses = []; const s = document.getElementById('status');
        new MutationObserver(() => statuses.push(s.textContent)).observe(s, {childList: true, characterData: true, subtree: true}); }""")
    await page.click("#confirm")
    played = await wait_for(lambda: page.evaluate("() => statuses.find(t => t.startsWith('Played')) || null"), "the move")
    cleared = await page.locator("#uci").input_value()
    board = {"g1": await piece(page, "g1"), "f3": await piece(page, "f3")}
    # The computer answers; the page notices without being asked (nothing polls: the game's
    # stream tells it).
    followed = await wait_for(lambda: page.evaluate("""() => {
        const i = statuses.findIndex(t => t.startsWith('Played'));
        return statuses.slice(i + 1).includes('Your move.') ? 'Your move.' : null; }"""),
        "the page to follow the computer's answer", tries=400)
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http:
        log = (await http.get(f"{base}/sessions/{game}/log")).json()
    answer = log["actions"][3]["action"]
    followed = {"status": followed, "from": await piece(page, answer[:2]), "to": await piece(page, answer[2:4])}
    await page.screenshot(path=f"{SHOTS}/moot-board-browser.png")
    await page.close()
    return {"followed": followed, 
        "http_status": resp.status, "before": state["status"], "read": read, "refused": refused, "kept": kept, "typed": typed,
        "played": played, "cleared": cleared, "board": board, "log": [a["action"] for a in log["actions"]], "errors": errors,
    }


MATE_IN_ONE = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"


async def claim(browser, base, white, black):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {white['token']}"}) as http:
        made = (await http.post(f"{base}/sessions", json={
            "template": "chess.v1", "participants": {"white": white["agent_id"], "black": black["agent_id"]},
            "options": {"fen": MATE_IN_ONE}})).json()
    game = made["session_id"]
    # Black agrees to the game White asked for.
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {black['token']}"}) as http:
        r = await http.post(f"{base}/sessions/{game}/accept")
        assert r.status_code == 200 and r.json()["status"] == "active", r.text
    page = await browser.new_page()
    await page.goto(f"{base}/chess/{game}")
    await page.fill("#token", white["token"])
    await page.dispatch_event("#token", "change")
    ready = await wait_for(lambda: page.locator("#status").text_content(), "the page to read the game")
    await page.check("#chkWaitMate")
    await page.fill("#uci", "h5h7")
    await page.click("#confirm")
    wrong = await wait_for(lambda: status_other_than(page, ready), "the refused claim")
    await page.fill("#uci", "h5f7")
    await page.click("#confirm")
    mated = await wait_for(lambda: status_other_than(page, wrong), "the mate")
    queen = await piece(page, "f7")
    await page.close()
    return {"ready": ready, "wrong_claim": wrong, "mated": mated, "f7": queen}


async def signed_in(browser, base, me, rival):
    """A person signed in on the web plays from the page as themselves: no API token asked for,
    a move made by clicking two squares; once the game is over the page takes no more moves."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {me['token']}"}) as http:
        made = (await http.post(f"{base}/sessions", json={
            "template": "chess.v1", "participants": {"white": me["agent_id"], "black": rival["agent_id"]}})).json()
    game = made["session_id"]
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {rival['token']}"}) as http:
        r = await http.post(f"{base}/sessions/{game}/accept")
        assert r.status_code == 200, r.text
    context = await browser.new_context()
    page = await context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"{base}/login?next=/chess/{game}")
    await page.fill("#name", me["name"])
    await page.fill("#password", me["token"])
    await page.click("button[type=submit]")
    await page.wait_for_url(f"**/chess/{game}")
    status = await wait_for(lambda: status_is(page, "Your move."), "the signed-in page to say whose move", tries=400)
    token_hidden = await wait_for(lambda: page.locator("#token-row").is_hidden(), "the token row to go", tries=400)
    await page.click('[data-square="e2"]')
    await page.click('[data-square="e4"]')
    # Every status shown from now on, however briefly (the game's stream may say whose move it
    # is within milliseconds of the answer).
    await page.evaluate("""() => { window.statuses = []; const s = document.getElementById('status');
        new MutationObserver(() => statuses.push(s.textContent)).observe(s, {childList: true, characterData: true, subtree: true}); }""")
    await page.click("#confirm")
    played = await wait_for(lambda: page.evaluate("() => statuses.find(t => t === 'Played e2e4.') || null"), "the move", tries=400)
    moved = await wait_for(lambda: piece(page, "e4"), "the board to show the move", tries=400)
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {rival['token']}"}) as http:
        tick = (await http.get(f"{base}/sessions/{game}/state")).json()["tick"]
        r = await http.post(f"{base}/sessions/{game}/actions", json={"action": "resign", "expected_tick": tick})
        assert r.status_code == 200, r.text
    over = await wait_for(lambda: page.locator("#controls").is_hidden(), "the move form to go", tries=400)
    await page.screenshot(path=f"{SHOTS}/moot-board-signed-in.png")
    await context.close()
    return {"status": status, "token_hidden": token_hidden, "played": played, "e4": moved,
            "form_gone_when_over": over, "errors": errors}


async def status_is(page, text):
    now = await page.locator("#status").text_content()
    return now if now == text else None


# A board nobody played: the white king alone on h1, the black on a8.
FAKE_BOARD = {"jsonrpc": "2.0", "method": "ui/notifications/tool-result",
              "params": {"structuredContent": {"fen": "k7/8/8/8/8/8/8/7K w - - 0 1"}}}


async def posted(browser, base, game):
    """A page of another origin (`localhost` for `127.0.0.1`) opens the game's page and posts it
    a made-up board, which it must not draw; the same message from moot's own origin is drawn,
    so that it is the origin check that refuses the other."""
    other = base.replace("127.0.0.1", "localhost")
    seen = {}
    for who, origin in [("other_origin", other), ("own_origin", base)]:
        opener = await browser.new_page()
        await opener.goto(f"{origin}/players")
        async with opener.expect_popup() as info:
            await opener.evaluate("url => { window.w = window.open(url); }", f"{base}/chess/{game}")
        page = await info.value
        await page.locator('[data-square="e1"]').wait_for()
        await wait_for(lambda: piece(page, "e1"), "the board")
        # Once the page follows the game (its first frame would redraw the board anew).
        await page.locator("#game-info").wait_for(state="visible")
        await asyncio.sleep(0.5)
        await opener.evaluate("m => window.w.postMessage(m, '*')", FAKE_BOARD)
        if who == "own_origin":
            for _ in range(40):
                if await piece(page, "h1") == "♔":
                    break
                await asyncio.sleep(0.05)
        else:
            await asyncio.sleep(1.0)
        seen[who] = {"e1": await piece(page, "e1"), "h1": await piece(page, "h1")}
        await page.close()
        await opener.close()
    return seen


async def status_other_than(page, text):
    now = await page.locator("#status").text_content()
    return now if now and now != text else None


async def main():
    base = sys.argv[1]
    async with httpx2.AsyncClient() as http:
        robo, two, webby = [(await http.post(f"{base}/agents", json={"name": n})).json() for n in ("Robo", "Rival", "Webby")]
    webby["name"] = "Webby"
    token = robo["token"]
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        async with streamable_http_client(f"{base}/mcp/chess", http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.discover()
                async with async_playwright() as p:
                    # Playwright gives the browser a new, empty profile of its own.
                    browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                    try:
                        game, host = await as_host(browser, session)
                        plain = await in_browser(browser, base, token, game, session)
                        claimed = await claim(browser, base, robo, two)
                        signed = await signed_in(browser, base, webby, two)
                        messages = await posted(browser, base, game)
                    finally:
                        await browser.close()
    print(json.dumps({"game_id": game, "host": host, "browser": plain, "claim": claimed, "signed_in": signed,
                      "posted": messages}))


if __name__ == "__main__":
    asyncio.run(main())
