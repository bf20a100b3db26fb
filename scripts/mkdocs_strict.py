"""MkDocs hooks that keep the site's check honest however it is run.

* ``--strict`` fails on any warning, ``--quiet`` or not. MkDocs counts a strict build's
  warnings with a handler on its ``mkdocs`` logger, and ``--quiet`` raises that
  logger's level to ERROR, so a quiet strict build never saw its warnings and passed
  past a broken link. The level is put back to WARNING at most; the warnings are then
  printed too, since they fail the build.
* ``CHANGELOG.md``, which ``docs/changelog.md`` includes, links from the repository's
  root (``docs/rooms/scale.md``), as it reads on its own; in the site those links are
  read from ``docs/`` (``rooms/scale.md``). The page's include is done here, before
  MkDocs checks its links (the snippets extension would include it after), with each
  ``](docs/`` made ``](``. A link outside ``docs/`` stays as written, and the strict
  build refuses it.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

_FROM_ROOT = re.compile(r"\]\(docs/")


def on_startup(**kwargs: Any) -> None:
    """Let warnings reach the strict build's counter, whatever ``--quiet`` set."""
    logger = logging.getLogger("mkdocs")
    if logger.getEffectiveLevel() > logging.WARNING:
        logger.setLevel(logging.WARNING)


INCLUDE = '--8<-- "CHANGELOG.md"'
"""``docs/changelog.md``'s include of the changelog."""


def on_page_markdown(markdown: str, page: Any, config: Any, **kwargs: Any) -> str:
    """The changelog's page: the changelog, its links read from ``docs/``."""
    if INCLUDE not in markdown:
        return markdown
    root = Path(config.config_file_path).parent
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    return markdown.replace(INCLUDE, _FROM_ROOT.sub("](", changelog))
