"""The town on the web in a real Chromium (Playwright): the town map and a Werewolf match page.

Usage: town.py BASE_URL TELNET_HOST:PORT SHOTS_DIR

  walk      a person on telnet walks north; the town page (open, not reloaded) shows them in
            the Town Hall, and how long that took is measured.
  match     a bot match (one agent who never acts and seven house bots) is followed on its
            public page to the end: the tally as votes come in, the text of the page at every
            change (checked here for secrets while the match runs), the result and a replay.
  chess     a spectator without a token follows a chess game between two agents: names,
            moves in SAN, the last move highlighted, whose turn, a move arriving live, the result.
  seeing    the all-seeing view: a player of the match, signed in with their token, has no
            button and is refused if they ask anyway; an outsider signed in with a password
            gets the button, and after a click the page shows every role.
  board     a person signed in on the town page signs the Werewolf notice board with its
            button; once seven agents have signed too, the page says "Game starting…" and
            gives their door.

Screenshots go to SHOTS_DIR. Prints one JSON object with what was seen; exits non-zero on any
failure.
"""

import asyncio
import json
import socket
import sys
import time

import httpx2
from playwright.async_api import async_playwright

from chromium import CHROMIUM, FLAGS, mcp

SECRETS = ["growls to the pack", "Your vision shows", "You will watch over", "(Spoiler)", "wants "]


def telnet(address, *lines):
    """A telnet session that types `lines` and stays open."""
    host, port = address.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    for line in lines:
        s.sendall(line.encode() + b"\r\n")
        time.sleep(0.3)
    return s


async def walk(browser, base, address, shots):
    walker = telnet(address, "create Wanda pw-Wanda-1")
    page = await browser.new_page()
    await page.goto(base + "/")
    square = page.locator('[data-room] [data-name="Wanda"]')
    await square.wait_for(timeout=10_000)
    before = await square.locator("xpath=ancestor::section").get_attribute("data-room")
    await page.screenshot(path=f"{shots}/town.png", full_page=True)
    started = time.monotonic()
    walker.sendall(b"north\r\n")
    await page.wait_for_function(
        """() => { const w = document.querySelector('[data-room] [data-name="Wanda"]');
                   return w && w.closest('section').dataset.room !== %s; }""" % json.dumps(before),
        timeout=5_000)
    took = time.monotonic() - started
    after = await page.locator('[data-room] [data-name="Wanda"]').locator(
        "xpath=ancestor::section").get_attribute("data-room")
    kind = await page.locator('[data-name="Wanda"] .kind').text_content()
    await page.screenshot(path=f"{shots}/town-after-walk.png", full_page=True)
    await page.close()
    walker.close()
    return {"from": before, "to": after, "seconds": took, "kind": kind}


async def bot_match(http, base, name):
    me = (await http.post(f"{base}/agents", json={"name": name})).json()
    parts = {"p1": me["agent_id"]} | {f"p{i + 1}": f"bot-{i}" for i in range(1, 8)}
    r = await http.post(f"{base}/sessions", headers={"Authorization": f"Bearer {me['token']}"}, json={
        "template": "werewolf.v1", "participants": parts,
        "options": {"bots": [2, 3, 4, 5, 6, 7, 8], "timers": {"lobby": 2}, "spectating": "live"}})
    assert r.status_code == 201, r.text
    return me, r.json()["session_id"]


async def follow(browser, base, http, shots):
    _, mid = await bot_match(http, base, "Quiet")
    page = await browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"{base}/werewolf/{mid}")
    await page.locator("#players [data-player]").first.wait_for(timeout=10_000)
    tallies, leaks, shot, living_roles = [], [], False, 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        # One evaluate reads the page between two frames (the page draws a frame in one go), so
        # the roles a finished match reveals are never counted as shown while it was live.
        now = await page.evaluate("""() => ({
            over: !document.getElementById("report-section").hidden
                || document.getElementById("phase").textContent === "Over",
            text: document.querySelector("main").innerText,
            living: document.querySelectorAll("#players .player:not(.dead) .role").length,
            tally: document.getElementById("tally").innerText})""")
        if not now["over"]:
            text, tally = now["text"], now["tally"]
            leaks += [s for s in SECRETS if s in text]
            living_roles = max(living_roles, now["living"])
            if "abstain" in tally or ":" in tally:
                if not tallies or tallies[-1] != tally:
                    tallies.append(tally)
                    if not shot and len(tallies) >= 3:
                        await page.screenshot(path=f"{shots}/match-voting.png", full_page=True)
                        shot = True
        else:
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the match page never showed the end")
    await page.locator("#winner").wait_for()
    winner = await page.locator("#winner").text_content()
    await page.select_option("#replay-viewer", "OMNISCIENT")
    await page.wait_for_function("() => document.getElementById('replay-at').textContent.endsWith(' / 0') === false")
    for _ in range(12):
        await page.click("#replay-next")
    replayed = await page.locator("#replay p").all_inner_texts()
    await page.screenshot(path=f"{shots}/match-ended.png", full_page=True)
    timeline = await page.locator("#timeline li").all_inner_texts()
    # On a phone: nothing wider than the screen.
    await page.set_viewport_size({"width": 390, "height": 844})
    overflow = await page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    await page.screenshot(path=f"{shots}/match-phone.png", full_page=False)
    await page.close()
    return {"match": mid, "tallies": tallies, "leaks": leaks, "living_roles_shown": living_roles,
            "winner": winner, "replayed": replayed, "errors": errors, "timeline": timeline,
            "phone_overflow": overflow}


async def sign_in(browser, base, name, password, next_path):
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(f"{base}/login?next={next_path}")
    await page.fill("#name", name)
    await page.fill("#password", password)
    kind = await page.get_attribute("#password", "type")
    await page.click("button[type=submit]")
    await page.wait_for_url(f"{base}{next_path}")
    return context, page, kind


async def seeing(browser, base, http, address, shots):
    me, mid = await bot_match(http, base, "Player")
    # The player, signed in with their token: no button, and a refusal if they ask anyway.
    ctx, page, kind = await sign_in(browser, base, "Player", me["token"], f"/werewolf/{mid}")
    await page.locator("#reader").filter(has_text="You play as p1").wait_for()
    player_button = await page.locator("#omniscient").is_visible()
    asked = await page.evaluate("""async (mid) => {
        const me = await (await fetch('/me')).json();
        const r = await fetch(`/werewolf/${mid}/omniscient`, {method: 'POST',
          headers: {'content-type': 'application/json', 'x-csrf-token': me.csrf}, body: JSON.stringify({on: true})});
        return [r.status, await r.json()];
    }""", mid)
    await ctx.close()
    # An outsider with a character (made on telnet), signed in with their password.
    outsider = telnet(address, "create Oskar pw-Oskar-1")
    ctx, page, _ = await sign_in(browser, base, "Oskar", "pw-Oskar-1", f"/werewolf/{mid}")
    await page.locator("#omniscient").wait_for(state="visible")
    public_roles = await page.locator("#players .player:not(.dead) .role").count()
    await page.click("#omniscient")
    await page.locator("#reader").filter(has_text="All-seeing").wait_for()
    await page.wait_for_function("() => document.querySelectorAll('#players .role').length === 8")
    await page.screenshot(path=f"{shots}/match-all-seeing.png", full_page=True)
    all_roles = await page.locator("#players .role").count()
    await ctx.close()
    outsider.close()
    return {"password_field": kind, "player_button": player_button, "player_asked": asked,
            "outsider_public_roles": public_roles, "outsider_all_roles": all_roles}


async def watch_chess(browser, base, http, shots):
    """A chess game between two agents, followed by a spectator who has no token."""
    a, b = [(await http.post(f"{base}/agents", json={"name": n})).json() for n in ("Alice", "Boris")]
    made = (await http.post(f"{base}/sessions", headers={"Authorization": f"Bearer {a['token']}"}, json={
        "template": "chess.v1", "participants": {"white": a["agent_id"], "black": b["agent_id"]}})).json()
    game, tick = made["session_id"], 0
    # Boris agrees to the game Alice asked him to.
    r = await http.post(f"{base}/sessions/{game}/accept", headers={"Authorization": f"Bearer {b['token']}"})
    assert r.status_code == 200 and r.json()["status"] == "active", r.text

    async def move(who, uci):
        nonlocal tick
        r = await http.post(f"{base}/sessions/{game}/actions", headers={"Authorization": f"Bearer {who['token']}"},
                            json={"action": uci, "expected_tick": tick})
        assert r.status_code == 200, r.text
        tick += 1

    await move(a, "e2e4")
    await move(b, "e7e5")
    context = await browser.new_context()
    page = await context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"{base}/chess/{game}")
    await page.locator("#move-list li").first.wait_for(timeout=10_000)
    before = {"white": await page.locator("#white-name").text_content(),
              "black": await page.locator("#black-name").text_content(),
              "moves": await page.locator("#move-list").inner_text(),
              "last": sorted(await page.locator(".sq.last").evaluate_all("els => els.map(e => e.dataset.square)")),
              "turn": await page.locator("#turn").text_content(),
              "token_type": await page.get_attribute("#token", "type")}
    started = time.monotonic()
    await move(a, "g1f3")
    await page.wait_for_function("() => document.getElementById('move-list').innerText.includes('Nf3')", timeout=5_000)
    seen_after = time.monotonic() - started
    after = {"moves": await page.locator("#move-list").inner_text(),
             "last": sorted(await page.locator(".sq.last").evaluate_all("els => els.map(e => e.dataset.square)")),
             "turn": await page.locator("#turn").text_content(),
             "f3": await page.locator('[data-square="f3"]').text_content()}
    await page.screenshot(path=f"{shots}/chess-spectator.png", full_page=True)
    r = await http.post(f"{base}/sessions/{game}/actions", headers={"Authorization": f"Bearer {b['token']}"},
                        json={"action": "resign", "expected_tick": tick})
    assert r.status_code == 200, r.text
    await page.wait_for_function("() => document.getElementById('result').textContent.length > 0", timeout=5_000)
    result = await page.locator("#result").text_content()
    await context.close()
    return {"before": before, "after": after, "seconds": seen_after, "result": result, "errors": errors}


async def board(browser, base, http, address, shots):
    """A person signed in on the town page signs the notice board with its button; when the
    eighth has signed, the page says the game is starting and gives their door."""
    person = telnet(address, "create Bea pw-Bea-moot1", "@quit")
    ctx, page, _ = await sign_in(browser, base, "Bea", "pw-Bea-moot1", "/")
    await page.locator("#sign").wait_for(state="visible")
    await page.click("#sign")
    await page.locator("#my-place").filter(has_text="You are number 1").wait_for()
    await page.locator("#board").filter(has_text="Bea").wait_for()
    on_board = await page.locator("#board").text_content()
    for i in range(7):
        agent = (await http.post(f"{base}/agents", json={"name": f"Joiner{i}"})).json()
        joined = await mcp(http, base, agent["token"], "et.werewolf.queue.join", {})
        assert joined["structuredContent"]["ok"], joined
    await page.locator("#my-place").filter(has_text="Game starting").wait_for()
    starting = await page.locator("#my-place").text_content()
    await page.screenshot(path=f"{shots}/town-board.png", full_page=True)
    await ctx.close()
    person.close()
    return {"on_board": on_board, "starting": starting}


async def main():
    base, address, shots = sys.argv[1], sys.argv[2], sys.argv[3]
    async with httpx2.AsyncClient(timeout=60) as http:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            try:
                walked = await walk(browser, base, address, shots)
                followed = await follow(browser, base, http, shots)
                seen = await seeing(browser, base, http, address, shots)
                chess = await watch_chess(browser, base, http, shots)
                signed = await board(browser, base, http, address, shots)
            finally:
                await browser.close()
    print(json.dumps({"walk": walked, "match": followed, "seeing": seen, "chess": chess,
                      "board": signed}))


if __name__ == "__main__":
    asyncio.run(main())
