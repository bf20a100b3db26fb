"""The engine's abuse list: expressions its limits refuse before any work, with the
words of each refusal. The parser's tests and the rooms' hostile-input tests share it."""

from __future__ import annotations

ABUSE: list[tuple[str, str]] = [
    ("1d6+d1000001", "more than 1,000,000 sides"),
    ("20001d6", "20,001 dice"),
    ("201d6!", "could roll 20,301 dice"),
    ("d1000000r<999999", "could roll 500,000 dice"),
    ("1001d20r<20", "could roll 20,020 dice"),
    ("(" * 51 + "1" + ")" * 51, "nests 51 deep; the limit is 50"),
    ("-" * 60 + "1", "nests 60 deep"),
    ("1+" * 500 + "1", "characters"),
    ("99999999999", "too large"),
]
