"""A player's page and a game's leaderboard in a real Chromium (Playwright).

Usage: ratings.py BASE_URL PLAYER GAME SHOTS_DIR

Opens /players/PLAYER and /leaderboard/GAME, as a desktop and as a phone, and prints one JSON
object with what they show: the heading, the rows of each table, the rating chart's points
(the SVG drawn on the server: no script, no external asset), the requests the pages made, and
how far each overflows a phone's width. Exits non-zero on any failure.
"""

import asyncio
import json
import sys

from playwright.async_api import async_playwright

from chromium import CHROMIUM, FLAGS


ROWS = """sel => [...document.querySelectorAll(sel + ' tr')].slice(1)
    .map(tr => [...tr.children].map(td => td.textContent.trim()))"""
OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


async def visit(browser, url, shot):
    page = await browser.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    response = await page.goto(url)
    seen = {
        "status": response.status,
        "h1": await page.text_content("h1"),
        "requests": requests,
        "errors": errors,
    }
    for table in ["standings", "conduct", "games", "board"]:
        seen[table] = await page.evaluate(ROWS, "table." + table)
    seen["notes"] = await page.evaluate("() => [...document.querySelectorAll('p')].map(p => p.textContent)")
    seen["charts"] = await page.evaluate(
        """() => [...document.querySelectorAll('svg polyline')]
            .map(p => p.getAttribute('points').split(' ').length)""")
    await page.screenshot(path=shot + ".png", full_page=True)
    await page.set_viewport_size({"width": 390, "height": 844})
    seen["phone_overflow"] = await page.evaluate(OVERFLOW)
    await page.screenshot(path=shot + "-phone.png", full_page=True)
    await page.close()
    return seen


async def main():
    base, player, game, shots = sys.argv[1:5]
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            out = {
                "player": await visit(browser, f"{base}/players/{player}", f"{shots}/player"),
                "board": await visit(browser, f"{base}/leaderboard/{game}", f"{shots}/leaderboard"),
                "nobody": await visit(browser, f"{base}/players/Nobody", f"{shots}/nobody"),
            }
        finally:
            await browser.close()
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
