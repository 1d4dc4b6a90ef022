"""Each role's home at 1366 and 390 px → docs/screens/ (issue 16).

With the demo town served on 127.0.0.1:8300 (`PORT=8300 bin/run`, or `stormwater demo_load` then `runserver`):
    .venv/bin/python docs/screens/take_screens.py docs/screens
"""
import sys
from pathlib import Path
from playwright.sync_api import sync_playwright

BASE = "http://127.0.0.1:8300"
OUT = Path(sys.argv[1])
OUT.mkdir(parents=True, exist_ok=True)
ROLES = ["director", "staff", "collector", "assessor", "clerk", "inspector", "consultant", "owner"]
with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"])
    for who in [None] + ROLES:
        for w in (1366, 390):
            ctx = b.new_context(viewport={"width": w, "height": 900 if w > 400 else 844})
            pg = ctx.new_page()
            if who:
                pg.goto(BASE + "/login/")
                pg.fill("input[name=username]", who)
                pg.fill("input[name=password]", "stormwater-demo")
                pg.locator("main form button[type=submit]").first.click()
                pg.wait_for_load_state("load")
                pg.goto(BASE + "/")
            else:
                pg.goto(BASE + "/portal/")
            pg.wait_for_load_state("networkidle")
            name = f"home-{who or 'public'}-{w}.png"
            pg.screenshot(path=str(OUT / name), full_page=False)
            sw = pg.evaluate("() => document.documentElement.scrollWidth")
            print(name, pg.url, "scrollWidth", sw)
            ctx.close()
    b.close()
