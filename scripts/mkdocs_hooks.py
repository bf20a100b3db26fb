"""MkDocs hooks: the CLI reference page is drawn from the commands when the site is built."""

from __future__ import annotations

from typing import Any

MARK = "<!-- referee-cli -->"


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    if MARK not in markdown:
        return markdown
    from referee.cli.reference import markdown as reference

    return markdown.replace(MARK, reference())
