"""Every file a user sends is bounded before it is parsed (issue 71 §3.3): sheets (the
CLI, a room's page and API, Discord's ``/sheet``) and encounters (``gurps simulate``
and ``swn simulate``, on the command line and as Discord's attachments) go through
:mod:`referee.untrusted`. Before, a 20 KB encounter of one dotted key took tomllib
6.3 s and 559 MB (100 KB: over 8.5 GB), and deep arrays raised a 2,503-line
``RecursionError``.

The hostile shapes are read in a child process through each entry point, each timed
with ``perf_counter``, and the child's peak memory (``VmHWM``, its own address space's
high-water mark: ``ru_maxrss`` keeps the forking pytest worker's peak across ``exec``,
which made a full run's 400-500 MB out of a 93 MB child) is read at the end:
under 300 MB, the bot's budget, whatever was sent. The child runs under a 2 GB address
limit and a deadline, so a shape that once took gigabytes fails the test in seconds."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from referee.errors import RefereeError, RuleError, SheetError
from referee.untrusted import MAX_ENTRIES, MAX_TOML_BYTES, UntrustedFileError, load_toml

PEAK_MB = 300
SECONDS = 3.0
"""The most any one read may take: each takes under 1 s on a busy core (the slowest,
an encounter of 256 KiB read and fought 10 times); a quadratic one took 6.3 s at 20 KB."""

_CHILD = r"""
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))
from referee.errors import RefereeError
from referee.sheets import read_sheet
from referee.commands.gurps_simulate import encounter_from_text
from referee.systems.swn.encounter import encounter_toml
from referee.rooms.discord.fight import fight

def sheet(data):
    return read_sheet(data)

def gurps(data):
    return encounter_from_text(data.decode(), "fight.toml")

def swn(data):
    return encounter_toml(data.decode(), "fight.toml")

def discord(data):
    return fight("swn", data.decode(), "fight.toml", 10)

readers = {"sheet": sheet, "gurps": gurps, "swn": swn, "discord": discord}
for name, reader in readers.items():  # warm: imports are not timed
    try:
        reader(b'name = "warm"\n')
    except RefereeError:
        pass
out = []
for line in sys.stdin:
    shape, reader, size = json.loads(line)
    data = SHAPES[shape](size)
    start = time.perf_counter()
    try:
        reader_result = readers[reader](data)
        said = "read"
    except RefereeError as exc:
        said = str(exc)
    out.append([shape, reader, time.perf_counter() - start, said])
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
print(json.dumps({"reads": out, "peak_kb": int(hwm[0].split()[1])}))
"""

_SHAPES = r"""
def _fill(head, unit, tail, size):
    return head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail

SHAPES = {
    "dotted key": lambda n: _fill(b"", b"a.", b"a = 1\n", n),
    "deep arrays": lambda n: _fill(b"x = ", b"[", b"", n),
    "deep inline tables": lambda n: _fill(b"x = ", b"{a=", b"", n),
    "long array": lambda n: _fill(b"x = [", b"1,", b"1]\n", n),
    "many tables": lambda n: b"".join(
        b"[t%d.b.c.d.e.f.g]\nh = 1\n" % i for i in range(n // 24)),
    "many dotted keys": lambda n: b"".join(
        b"k%d.b.c.d.e.f.g.h = 1\n" % i for i in range(n // 24)),
    "json objects": lambda n: _fill(b'{"a": [', b"{},", b"{}]}", n),
    "json deep": lambda n: _fill(b'{"a": ', b"[", b"", n),
    "long number": lambda n: _fill(b"x = ", b"9", b"\n", n),
}
"""

TOML = MAX_TOML_BYTES - 64
CASES = [
    *(
        (shape, reader, size)
        for shape in ("dotted key",)
        for size in (20_000, 40_000, 100_000, TOML)
        for reader in ("gurps", "swn", "discord", "sheet")
    ),  # fmt: skip
    *(
        (shape, reader, TOML)
        for shape in (
            "deep arrays",
            "deep inline tables",
            "long array",
            "many tables",
            "many dotted keys",
            "long number",
        )
        for reader in ("gurps", "swn", "discord", "sheet")
    ),  # fmt: skip
    ("json objects", "sheet", 5 * 1024 * 1024 - 64),
    ("json objects", "sheet", 3 * MAX_ENTRIES),
    ("json deep", "sheet", 1024 * 1024),
]


def test_every_file_a_user_sends_is_read_or_refused_in_bounded_time_and_memory() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "OPENBLAS_NUM_THREADS": "1"}
    lines = "".join(json.dumps(case) + "\n" for case in CASES)
    done = subprocess.run(
        [sys.executable, "-c", _SHAPES + _CHILD],
        input=lines, env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout)
    reads = {(shape, reader, size): (seconds, said)
             for (shape, reader, seconds, said), (_, _, size) in zip(got["reads"], CASES,
                                                                     strict=True)}  # fmt: skip
    for case, (seconds, said) in reads.items():
        assert seconds < SECONDS, (case, seconds, said)
        assert "Traceback" not in said and "recursion" not in said.lower(), (case, said)
    peak = got["peak_kb"] / 1024
    assert peak < PEAK_MB, f"peak {peak:.0f} MB"
    for size in (20_000, 40_000, 100_000, TOML):
        for reader in ("gurps", "swn", "discord"):
            said = reads[("dotted key", reader, size)][1]
            assert said.startswith("fight.toml: the key 'a.a.a.a."), said
            assert f"has {(size - 6) // 2 + 1:,} parts (line 1); an encounter's keys" in said
        said = reads[("dotted key", "sheet", size)][1]
        assert "a sheet's keys have at most 8" in said, said
    for reader in ("gurps", "swn", "discord"):
        said = reads[("deep arrays", reader, TOML)][1]
        assert "levels deep (line 1); an encounter needs at most 40" in said, said
        said = reads[("deep inline tables", reader, TOML)][1]
        assert "levels deep (line 1); an encounter needs at most 40" in said, said
        said = reads[("long number", reader, TOML)][1]
        assert "an encounter's numbers have at most 100" in said, said
    said = reads[("json objects", "sheet", 5 * 1024 * 1024 - 64)][1]
    assert f"over {MAX_ENTRIES:,} entries" in said, said
    assert "nests" in reads[("json deep", "sheet", 1024 * 1024)][1]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("a.a.a.a.a.a.a.a.a = 1", "the key 'a.a.a.a.a.a.a.a.a' has 9 parts (line 1)"),
        ("x = " + "[" * 41, "the file nests 41 levels deep (line 1); an encounter needs"),
        ("x = [" + "1," * MAX_ENTRIES + "1]", f"over {MAX_ENTRIES:,} entries (line 1)"),
        ("x = \nb = 1\n", "the file is not valid TOML: Invalid value (line 1, column 5)"),
    ],
)
def test_one_bound_in_one_place(text: str, said: str) -> None:
    """:func:`referee.untrusted.load_toml` says what is wrong, and where; the sheets'
    and the encounters' readers say the same, each as its own kind of error."""
    from referee.commands.gurps_simulate import encounter_from_text
    from referee.sheets import read_sheet
    from referee.systems.swn.encounter import encounter_toml

    if len(text) > MAX_TOML_BYTES:
        with pytest.raises(UntrustedFileError, match="TOML encounter may be at most"):
            load_toml(text, "an encounter")
        return
    with pytest.raises(UntrustedFileError) as caught:
        load_toml(text, "an encounter")
    assert said in str(caught.value)
    for reader in (encounter_from_text, encounter_toml):
        with pytest.raises(RuleError) as rule:
            reader(text, "x.toml")
        assert str(rule.value) == f"x.toml: {caught.value}"
    with pytest.raises(SheetError) as sheet:
        read_sheet(text.encode())
    assert isinstance(sheet.value, RefereeError) and said.split(";")[0] in str(sheet.value)
