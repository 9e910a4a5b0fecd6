"""Playing from the browser beside a telnet player, in a real Chromium (Playwright), and
axe-core on every page.

Usage: play.py BASE_URL TELNET_HOST:PORT SHOTS_DIR AXE_JS

  signup    Wren makes a character with /login's form and is signed in.
  console   Wren uses the web console: she reads the room, hears Tom (on telnet) say something
            as it happens (measured), says something Tom hears, and each sees the other in the
            room; the screen-reader toggle turns the mode on and off.
  chess     Tom (telnet) challenges Wren, who accepts on the console and plays e2-e4 by dragging
            the pawn on the game's page; Tom reads her move and answers, and her page shows it;
            they play on to the scholar's mate, after which her page takes no more moves.
  tables    Wren plays the house at tic-tac-toe (a click on a cell) and Connect Four (a click on
            a column's button) on their pages.
  werewolf  Wren (the town page's button) and Tom (telnet) sign the notice board with six
            agents; in the match Wren acts with the page's buttons and boxes and Tom by typing:
            each sees the other's words or vote.
  axe       every page (the town, sign-in, the console, leaderboards, players, a player, each
            game's page, signed out and in) has no serious or critical axe-core violation.

Screenshots go to SHOTS_DIR. Prints one JSON object with what was seen; exits non-zero on any
failure.
"""

import asyncio
import json
import re
import socket
import sys
import threading
import time

import httpx2
from playwright.async_api import async_playwright

from chromium import CHROMIUM, FLAGS, mcp

WREN = ("Wren", "pw-Wren-moot1")


class Telnet:
    """A telnet player: lines typed, and every line read kept to wait on."""

    def __init__(self, address, *lines):
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)))
        self.lines = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        for line in lines:
            self.send(line)
            time.sleep(0.2)

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = self.sock.recv(4096)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                # Telnet's negotiation bytes are not text.
                text = bytes(b for b in line if b < 0xF0).decode("utf-8", "replace").strip("\r")
                with self.lock:
                    self.lines.append(text)

    def send(self, line):
        self.sock.sendall(line.encode() + b"\r\n")

    def mark(self):
        with self.lock:
            return len(self.lines)

    def wait_for(self, pattern, since=0, timeout=15):
        """The first line read after `since` that matches `pattern` (a regex)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                for line in self.lines[since:]:
                    if re.search(pattern, line):
                        return line
            time.sleep(0.05)
        with self.lock:
            raise AssertionError(f"telnet never read {pattern!r}: {self.lines[since:][-30:]}")

    def close(self):
        self.sock.close()


async def console_lines(page):
    return await page.locator("#out div").all_text_contents()


async def wait_console(page, pattern, timeout=15):
    """The first console line matching `pattern`, waited for."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in await console_lines(page):
            if re.search(pattern, line):
                return line
        await asyncio.sleep(0.1)
    raise AssertionError(f"the console never showed {pattern!r}: {(await console_lines(page))[-30:]}")


async def type_line(page, line):
    await page.fill("#line", line)
    await page.press("#line", "Enter")


async def signup(browser, base, shots):
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.goto(f"{base}/login?next=/console")
    await page.fill("#new-name", WREN[0])
    await page.fill("#new-password", WREN[1])
    await page.click("form[action='/signup'] button[type=submit]")
    await page.wait_for_url(f"{base}/console")
    me = await page.evaluate("async () => (await fetch('/me')).json()")
    return ctx, page, {"signed_in": me["signedIn"], "name": me.get("name")}


async def console(page, address, shots):
    tom = Telnet(address, "create Tom pw-Tom-moot1", "@wrap off")
    tom.wait_for(r"Word wrap is now off")
    # The page opened with a look: the Town Square, and Tom there once he came.
    await wait_console(page, r"^Town Square$")
    await type_line(page, "look")
    await wait_console(page, r"^Tom is here\.$")
    since = tom.mark()
    tom.send("look")
    tom_sees = tom.wait_for(r"Wren.* here\.", since)
    started = time.monotonic()
    tom.send("say Hello, Wren")
    heard = await wait_console(page, r'^Tom says, "Hello, Wren"$')
    took = time.monotonic() - started
    since = tom.mark()
    await type_line(page, "say Hi Tom")
    tom_heard = tom.wait_for(r'^Wren says, "Hi Tom"$', since)
    await wait_console(page, r'^You say, "Hi Tom"$')
    # The screen-reader toggle is `@screenreader`, stored with the character.
    await page.check("#screenreader")
    on = await wait_console(page, r"^Screen-reader mode is on")
    await type_line(page, "look")
    await wait_console(page, r"^Exit north to ")
    await page.uncheck("#screenreader")
    off = await wait_console(page, r"^Screen-reader mode is off")
    await page.screenshot(path=f"{shots}/console.png", full_page=True)
    return tom, {"heard": heard, "seconds": took, "tom_heard": tom_heard, "tom_sees": tom_sees,
                 "screenreader": [on, off]}


async def chess(page, base, tom, shots):
    since = tom.mark()
    tom.send("east")
    tom.wait_for(r"^Chess Parlour$", since)
    await type_line(page, "east")
    await wait_console(page, r"^Chess Parlour$")
    since = tom.mark()
    tom.send("challenge Wren as black")
    tom.wait_for(r"Wren", since)
    await wait_console(page, r"challenges you to a game of chess")
    await type_line(page, "accept Tom")
    started = await wait_console(page, r"#\d+")
    game = re.search(r"#(\d+)", started).group(1)
    board = await page.context.new_page()
    await board.goto(f"{base}/chess/{game}")
    await board.locator("#status").filter(has_text="Your move.").wait_for(timeout=15_000)
    since = tom.mark()
    await board.drag_and_drop('[data-square="e2"]', '[data-square="e4"]')
    await board.click("#confirm")
    tom_read = tom.wait_for(r"Wren \(white\) plays e4", since)
    tom.send("move e5")
    await board.locator("#move-list").filter(has_text="e4 e5").wait_for(timeout=15_000)
    said = await board.locator("#said").text_content()
    await board.screenshot(path=f"{shots}/play-chess.png", full_page=True)
    # To the end: the scholar's mate, Wren's moves dragged, Tom's typed.
    for drag, san, answer in [(("f1", "c4"), "Bc4", "Nc6"), (("d1", "h5"), "Qh5", "Nf6"),
                              (("h5", "f7"), "Qxf7#", None)]:
        # Tom's answer is on the page's move list (its status may still be telling of her own
        # last move, whose answer came back after his): her turn.
        since = tom.mark()
        await board.drag_and_drop(f'[data-square="{drag[0]}"]', f'[data-square="{drag[1]}"]')
        await board.click("#confirm")
        tom.wait_for(rf"Wren \(white\) plays {re.escape(san)}", since)
        if answer:
            tom.send(f"move {answer}")
            await board.locator("#move-list").filter(has_text=answer).wait_for(timeout=15_000)
    # The game over, its page takes no more moves, and Tom reads how it ended.
    await board.locator("#controls").wait_for(state="hidden", timeout=15_000)
    result = await board.locator("#result").text_content()
    tom_read_end = tom.wait_for(r"(?i)checkmate", since)
    await board.screenshot(path=f"{shots}/play-chess-mate.png", full_page=True)
    moves = await board.locator("#move-list").text_content()
    await board.close()
    return {"game": game, "tom_read": tom_read, "moves": moves, "said": said, "result": result,
            "tom_read_end": tom_read_end}


async def tables(page, base, shots):
    await type_line(page, "west")
    await type_line(page, "south")
    await wait_console(page, r"^Game Room$")
    await type_line(page, "play tictactoe with house")
    line = await wait_console(page, r"tic-tac-toe.*#\d+|#\d+.*tic-tac-toe")
    ttt = re.search(r"#(\d+)", line).group(1)
    board = await page.context.new_page()
    await board.goto(f"{base}/tictactoe/{ttt}")
    await board.locator('#board button[data-cell="5"]').click(timeout=15_000)
    # The house answers at once; the page shows both marks.
    await board.locator('#board [data-cell="5"]').filter(has_text="X").wait_for(timeout=15_000)
    await board.wait_for_function("() => document.querySelectorAll('#board span').length >= 2")
    marked = await board.locator("#board").get_attribute("aria-label")
    cells = await board.locator("#board [data-cell]").evaluate_all(
        "cs => cs.map(c => c.getAttribute('aria-label'))")
    await board.screenshot(path=f"{shots}/play-tictactoe.png", full_page=True)
    await board.close()
    await type_line(page, "play connect4 with house")
    line = await wait_console(page, r"Connect Four.*#\d+|#\d+.*Connect Four")
    c4 = re.search(r"#(\d+)", line).group(1)
    board = await page.context.new_page()
    await board.goto(f"{base}/connect4/{c4}")
    await board.get_by_role("button", name="Drop a disc in column 4").click(timeout=15_000)
    red = board.locator('[aria-label="column 4, row 1: red"]')
    await red.wait_for(timeout=15_000)
    await board.wait_for_function(
        "() => document.querySelectorAll('#board .Y').length === 1")
    await board.screenshot(path=f"{shots}/play-connect4.png", full_page=True)
    await board.close()
    return {"tictactoe": ttt, "cells": cells, "label": marked, "connect4": c4}


async def werewolf(page, base, http, tom, shots):
    since = tom.mark()
    tom.send("west")
    tom.send("north")
    tom.wait_for(r"^Town Hall$", since)
    tom.send("sign board")
    tom.wait_for(r"notice board|queue", since)
    town = await page.context.new_page()
    await town.goto(f"{base}/")
    await town.locator("#sign").wait_for(state="visible")
    await town.click("#sign")
    await town.locator("#my-place").filter(has_text="You are number 2").wait_for()
    for i in range(6):
        agent = (await http.post(f"{base}/agents", json={"name": f"Villager{i}"})).json()
        joined = await mcp(http, base, agent["token"], "et.werewolf.queue.join", {})
        assert joined["structuredContent"]["ok"], joined
    await town.locator("#my-place").filter(has_text="Game starting").wait_for()
    status = await town.evaluate("async () => (await fetch('/werewolf/board')).json()")
    match = status["matchAssignment"]["matchId"]
    await town.close()
    game = await page.context.new_page()
    await game.goto(f"{base}/werewolf/{match}")
    await game.locator("#reader").filter(has_text="You play as").wait_for()
    players = await game.locator("#players").text_content()
    await game.locator("#act").wait_for(state="visible")
    shot = 0
    # The match runs on its own clock; Wren acts whenever the page offers her something, until
    # the first vote is done. What she and Tom do is checked from the other's side.
    wren_spoke = tom_spoke = wren_voted = tom_saw_vote = tom_voted = None
    # What the move panel said in each phase: past the lobby it never asks her to be ready.
    briefs = {}
    shot_phases = set()
    # Several days if need be: on a loaded machine a vote phase may pass while the page is busy.
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not (wren_voted or tom_voted):
        phase = await game.locator("#phase").text_content()
        brief = await game.locator("#act-brief").text_content() or ""
        alive = "dead" not in brief
        briefs.setdefault(phase, set()).add(brief)
        if "discussion" in phase and wren_spoke is None and tom_spoke is None:
            if alive and await game.locator("#act-speak").is_visible():
                since = tom.mark()
                await game.fill("#act-words", "I trust Tom.")
                await game.click("#act-speak button[type=submit]")
                wren_spoke = tom.wait_for(r"Wren.*I trust Tom\.", since)
            else:
                tom.send("speak Wren is quiet today.")
                await game.locator("#transcript").filter(has_text="Wren is quiet today.").wait_for()
                tom_spoke = "Wren is quiet today."
        if "vote" in phase and not alive and tom_voted is None:
            tom.send("vote none")
            await game.locator("#transcript").filter(has_text="Tom").filter(
                has_text="abstains").wait_for(timeout=10_000)
            tom_voted = "none"
        if "vote" in phase and alive and wren_voted is None:
            buttons = game.locator("#act-targets button")
            if await buttons.count():
                since = tom.mark()
                label = await buttons.first.text_content()
                await buttons.first.click()
                # The vote is told to everyone in the match, her too: her page's transcript.
                await game.locator("#transcript p").filter(
                    has_text=re.compile(r"^Wren (votes|abstains)")).wait_for(timeout=10_000)
                wren_voted = label
                try:
                    tom_saw_vote = tom.wait_for(r"Wren votes", since, timeout=10)
                except AssertionError:
                    tom_saw_vote = None
        # One picture of each kind of phase: the night, the discussion, the vote.
        kind = next((k for k in ("night", "discussion", "vote") if k in phase), None)
        if kind and kind not in shot_phases:
            shot_phases.add(kind)
            await game.screenshot(path=f"{shots}/play-werewolf-{shot}-{kind}.png", full_page=True)
            shot += 1
        await asyncio.sleep(0.3)
    transcript = await game.locator("#transcript").text_content()
    await game.close()
    return {"match": match, "players": players, "wren_spoke": wren_spoke, "tom_spoke": tom_spoke,
            "wren_voted": wren_voted, "tom_saw_vote": tom_saw_vote, "tom_voted": tom_voted,
            "transcript_names_tom": "Tom" in transcript,
            "ready_asked_after_lobby": sorted(p for p, b in briefs.items()
                                              if "lobby" not in p.lower() and "Say you are ready." in b),
            "phases_seen": sorted(briefs)}


async def axe(browser, base, http, axe_js, signed_in, games):
    """axe-core on every page, as someone signed out and as Wren: the serious and critical
    violations, by page."""
    source = open(axe_js).read()
    # OAuth's consent page, for a client an MCP host registered, and its error page.
    redirect = "http://127.0.0.1:9/callback"
    client = (await http.post(f"{base}/oauth/register", json={
        "client_name": "A host", "redirect_uris": [redirect]})).json()
    consent = ("/oauth/authorize?response_type=code&client_id=" + client["client_id"] +
               "&redirect_uri=" + redirect + "&code_challenge=" + "E" * 43 +
               "&code_challenge_method=S256&state=s")
    pages = ["/", "/login", "/console", "/leaderboard", "/leaderboard/chess", "/players",
             "/players/Wren", consent, "/oauth/authorize"] + [
                 f"/{kind}/{gid}" for kind, gid in games]
    found = {}
    for who, ctx in [("signed out", await browser.new_context()), ("Wren", signed_in)]:
        for path in pages:
            page = await ctx.new_page()
            await page.goto(base + path)
            await page.wait_for_load_state("networkidle")
            await page.evaluate(source)
            result = await page.evaluate(
                "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}))")
            bad = [v for v in result if v["impact"] in ("serious", "critical")]
            if bad:
                found[f"{who} {path}"] = bad
            await page.close()
    return {"pages": len(pages) * 2, "violations": found}


async def main():
    base, address, shots, axe_js = sys.argv[1:5]
    async with httpx2.AsyncClient(timeout=60) as http:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            try:
                ctx, page, made = await signup(browser, base, shots)
                tom, talked = await console(page, address, shots)
                played = await chess(page, base, tom, shots)
                tabled = await tables(page, base, shots)
                matched = await werewolf(page, base, http, tom, shots)
                games = [("chess", played["game"]), ("tictactoe", tabled["tictactoe"]),
                         ("connect4", tabled["connect4"]), ("werewolf", matched["match"])]
                checked = await axe(browser, base, http, axe_js, ctx, games)
                tom.close()
            finally:
                await browser.close()
    print(json.dumps({"signup": made, "console": talked, "chess": played, "tables": tabled,
                      "werewolf": matched, "axe": checked}))


if __name__ == "__main__":
    asyncio.run(main())
