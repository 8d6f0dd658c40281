"""Measure a page in headless Chromium (for the report and replay tests).

``probe(page, width, script)`` loads a copy of ``page`` in an iframe ``width`` CSS pixels
wide (so media queries see a phone's viewport, which a headless window narrower than
500 px does not give), runs ``script`` (the body of a JavaScript function returning
something JSON can hold) once the page has loaded and returns its result.  Chromium runs
with a fresh profile and without network services; ``CHROMIUM`` is None when it is not
installed (the tests skip then: ``apt-get install chromium``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)),
                None)

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]


def probe(page: Path, width: int, script: str, height: int = 900) -> object:
    """The value ``script`` returns inside ``page`` shown ``width`` px wide; an uncaught
    error in the page or the script fails with the error's text."""
    with tempfile.TemporaryDirectory(prefix="ginsim-chromium-") as tmp:
        tmp = Path(tmp)
        runner = ("<script>window.addEventListener('load',function(){var r;"
                  "try{r={ok:(function(){" + script + "})()};}catch(e){r={error:String(e&&e.stack||e)}}"
                  "parent.postMessage(JSON.stringify(r),'*');});"
                  "window.addEventListener('error',function(e){parent.postMessage("
                  "JSON.stringify({error:'page: '+e.message}),'*');});</script>")
        text = page.read_text(encoding="utf-8")
        # the error listener first (in <head>), the measurement after the page's own script
        text = text.replace("<head>", "<head>" + runner, 1) if "<head>" in text else runner + text
        (tmp / "page.html").write_text(text, encoding="utf-8")
        (tmp / "frame.html").write_text(
            "<!DOCTYPE html><html><body style=\"margin:0\"><pre id=\"result\"></pre>"
            f"<iframe src=\"page.html\" style=\"width:{width}px;height:{height}px;border:0\"></iframe>"
            "<script>window.addEventListener('message',function(e){var p=document.getElementById('result');"
            "if(!p.textContent)p.textContent=e.data;});</script></body></html>", encoding="utf-8")
        done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp / 'profile'}",
                               f"--window-size={max(width, 500) + 40},{height + 100}", "--virtual-time-budget=10000",
                               "--dump-dom", (tmp / "frame.html").as_uri()],
                              capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="result">(.*?)</pre>', done.stdout, re.S)
    assert found and found.group(1), f"the page sent no result: {done.stderr[-2000:]}"
    import html

    result = json.loads(html.unescape(found.group(1)))
    assert "error" not in result, result["error"]
    return result["ok"]
