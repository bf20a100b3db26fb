"""A pymarkdown rule for what Python-Markdown (MkDocs) reads otherwise than CommonMark.

Inside a list, after a blank line, Python-Markdown continues a list item only with a
block indented by 4 spaces (one more 4 for each level of nesting). CommonMark, and so
pymarkdown's own rules and GitHub, take 2 spaces after ``- `` or 3 after ``1. `` too. So

    - an item

      its second paragraph

is one item on GitHub, but in the docs site the list ends and the paragraph stands
outside it, with any items after it run into that paragraph's text. This rule reports
such a block; the fix is to indent it by 4 (8, ...).

Python-Markdown also reads a list by blocks (the lines between blank lines): a block
that begins indented belongs whole to the item above, so an item that follows such a
block with no blank line between is read as more of its text. This rule reports that
item; the fix is a blank line before it. Nested list items themselves are PML101's
(``list-anchored-indent``, indent 4).

Loaded by ``.pymarkdown`` (``plugins.additional_paths``); pymarkdown names the class
after the file.
"""

from __future__ import annotations

import re

from pymarkdown.plugin_manager.plugin_details import PluginDetailsV2, PluginDetailsV3
from pymarkdown.plugin_manager.plugin_scan_context import PluginScanContext
from pymarkdown.plugin_manager.rule_plugin import RulePlugin

_ITEM = re.compile(r"^ *(?:[-*+]|\d+\.)(?: +|$)")
_FENCE = re.compile(r"^ *(`{3,}|~{3,})")
_HEADING = re.compile(r"^#{1,6}(?: |$)")


class PythonMarkdownLists(RulePlugin):
    """After a blank line in a list, a block must be indented by a multiple of 4."""

    def __init__(self) -> None:
        super().__init__()
        self.__in_list = False
        self.__after_blank = False
        self.__fence = ""
        self.__block_indent = 0  # the indent of a continuation block being read, or 0

    def get_details(self) -> PluginDetailsV2:
        return PluginDetailsV3(
            plugin_name="python-markdown-list-blocks",
            plugin_id="REF001",
            plugin_enabled_by_default=True,
            plugin_description=(
                "A list item's later blocks are indented by 4 spaces, and an item after"
                " one follows a blank line (Python-Markdown)"
            ),
            plugin_version="0.1.0",
            plugin_url="https://python-markdown.github.io/#differences",
            plugin_supports_fix=False,
        )

    def starting_new_file(self) -> None:
        self.__in_list = False
        self.__after_blank = False
        self.__fence = ""
        self.__block_indent = 0

    def next_line(self, context: PluginScanContext, line: str) -> None:
        line = line.expandtabs(4)
        if self.__fence:  # inside fenced code: only its closing fence matters
            if line.strip().startswith(self.__fence) and not line.strip(self.__fence[0]).strip():
                self.__fence = ""
            return
        if not line.strip():
            self.__after_blank = True
            self.__block_indent = 0
            return
        indent = len(line) - len(line.lstrip(" "))
        if self.__in_list and self.__after_blank and indent >= 4:
            self.__block_indent = indent  # a block that continues the item above
        if _ITEM.match(line):
            if not self.__after_blank and indent < self.__block_indent:
                self.report_next_line_error(
                    context,
                    indent + 1,
                    extra_error_information=(
                        "Python-Markdown reads this item as text of the indented block "
                        "above; put a blank line before it"
                    ),
                )
                self.__block_indent = 0  # one report a block
            self.__in_list = True
        elif indent == 0 and (self.__after_blank or _HEADING.match(line)):
            self.__in_list = False  # a paragraph, heading or table after the list
        elif self.__in_list and self.__after_blank and indent % 4:
            self.report_next_line_error(
                context,
                indent + 1,
                extra_error_information=(
                    f"Indented by {indent}: Python-Markdown ends the list here; "
                    f"indent by {(indent // 4 + 1) * 4}"
                ),
            )
        if fence := _FENCE.match(line):
            self.__fence = fence[1]
        self.__after_blank = False
