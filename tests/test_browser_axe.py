"""The browser tests' accessibility check (:func:`browser.serious_violations`) finds what
axe-core finds, with its script injected once a document: a run on a page with a
critical violation names it, a second run on the same document (no new script) still
does, and a page navigated to anew (the script gone with the old document) gets it
again."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from browser import ON_ITS_LOOP, contexts, serious_violations

BAD = '<!doctype html><html lang="en"><title>t</title><main><img src="x.png"></main></html>'
"""An image with no text alternative: axe-core's ``image-alt``, a critical violation."""
GOOD = BAD.replace('<img src="x.png">', '<img src="x.png" alt="A map">')
INJECTED = "typeof window.axe?.run"


@ON_ITS_LOOP
async def test_a_violation_is_found_on_each_run_and_after_a_navigation(chromium: Any) -> None:
    async with contexts(chromium) as browser:
        page = await (await browser.new_context()).new_page()
        await page.goto("data:text/html," + quote(BAD))
        first = await serious_violations(page)
        assert [v.split(" ")[0] for v in first] == ["image-alt"], first
        assert "(critical)" in first[0]
        assert await page.evaluate(INJECTED) == "function"
        assert await serious_violations(page) == first  # the script kept, run again
        for html, found in ((GOOD, []), (BAD, first)):
            await page.goto("data:text/html," + quote(html))
            assert await page.evaluate(INJECTED) == "undefined"  # gone with the document
            assert await serious_violations(page) == found
