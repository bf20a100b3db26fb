"""The pinned results: what every rolling command's help examples give on fixed seeds,
as one digest. A change of rules or text that alters a result for the same draws
changes it, and must then be written in CHANGELOG.md (``tests/test_changelog.py``)."""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path

from referee import commands, seeded
from referee.commands.reader import front_options, load
from referee.commands.registry import COMMANDS

LOCK = Path(__file__).parent / "data" / "results.lock.json"
SEEDS = range(5)


def examples() -> list[str]:
    """Every rolling command's help examples that need no file, as typed."""
    load()
    out = []
    for meta in COMMANDS.values():
        if not meta.rolls:
            continue
        for line in (meta.epilog or "").splitlines():
            if not line.strip().startswith("referee "):
                continue
            words = shlex.split(line.strip())
            if words[:1] != ["referee"] or any(
                w.endswith((".toml", ".gcs", ".json")) for w in words
            ):
                continue
            out.append(shlex.join([w for w in words[1:] if w != "--json"]))
    return sorted(set(out))


def digest() -> str:
    """sha256 of every example's JSON result on each seed, in order."""
    h = hashlib.sha256()
    for line in examples():
        words, front = front_options(shlex.split(line))  # --seed, -n, --secret: ours
        for k in SEEDS:
            data = commands.run(words, seeded(k), secret=front.secret).data
            h.update(line.encode() + b"\0" + json.dumps(data, sort_keys=True).encode() + b"\n")
    return h.hexdigest()


if __name__ == "__main__":  # write the lock: python tests/pinned.py
    from referee import __version__

    LOCK.write_text(json.dumps({"version": __version__, "digest": digest()}, indent=2) + "\n")
    print(LOCK.read_text())
