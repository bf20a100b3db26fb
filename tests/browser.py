"""One Chromium for each test process (issue 53): each browser test opens its pages in
contexts of its own, in the Chromium that the first one launched. A launch, with its
Playwright driver, cost 1.9 s of CPU here (1.7 s of wall time), against 0.3-0.5 s for a
new context, and a run launched some fifty. A context shares no cookie, storage or cache
with another, and every context a test opened is closed when it ends.

The browser tests run on the test process's one event loop, where the browser lives:
``@pytest.mark.asyncio(loop_scope="session")`` (:data:`ON_ITS_LOOP`)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]

ON_ITS_LOOP = pytest.mark.asyncio(loop_scope="session")
"""A browser test's mark: it runs on the loop the shared browser lives on."""


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium() -> AsyncIterator[Any]:
    """The test process's Chromium (a ``playwright.async_api.Browser``), launched at its
    first use and closed at the end of the run."""
    from playwright.async_api import async_playwright

    assert Path(CHROMIUM).exists(), "scripts/install-services.sh installs Chromium"
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield browser
        await browser.close()


EXPECT_TIMEOUT = 15_000
"""How long (ms) Playwright's ``expect`` waits in every browser test. Its default, 5 s,
is short on a loaded 2-core machine; and ``expect.set_options`` is global, so when
some tests set it, the others got 5 s or 15 s by the order they ran in (issue 53: one
failed so, under four workers)."""


@asynccontextmanager
async def contexts(browser: Any) -> AsyncIterator[Any]:
    """The shared ``browser``, for a block whose every new context (and so every page
    opened in it) is closed when the block ends, however it ends; ``expect`` waits
    :data:`EXPECT_TIMEOUT` in it."""
    from playwright.async_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT)
    before = set(browser.contexts)
    try:
        yield browser
    finally:
        for context in browser.contexts:
            if context not in before:
                await context.close()


async def serious_violations(page: Any) -> list[str]:
    """The serious and critical violations axe-core finds on ``page``, each as
    ``"id (impact): help"``: axe-playwright-python's script and options, but its 570 KB
    script injected once a document rather than at each run (``Axe().run`` injects it
    every time: a third of a run's CPU in Chromium, about 0.34 s a run against 0.22 s
    on the room page here, and the suite runs about a hundred)."""
    from axe_playwright_python.async_playwright import DEFAULT_OPTIONS, Axe

    if not await page.evaluate("typeof window.axe?.run === 'function'"):
        await page.evaluate(Axe().axe_script)  # (again after a navigation)
    found = await page.evaluate(f"axe.run({json.dumps(DEFAULT_OPTIONS)})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']}"
        for v in found["violations"]
        if v["impact"] in ("serious", "critical")
    ]
