"""Rule systems, one module each, made of pure functions returning frozen results.

The systems register here by name, with aliases (STYLE principle 3). Adding a
game means adding its package under ``referee.systems``, one entry below, and
its commands in one module of :mod:`referee.commands`.

>>> get_system("psi-punk").name
'fudge'
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from ..errors import RuleError

__all__ = ["SYSTEMS", "System", "get_system"]


@dataclass(frozen=True, slots=True)
class System:
    """One registered rule system."""

    name: str
    """The canonical name, also the CLI command: ``referee gurps ...``."""
    title: str
    """What it covers, for help texts."""
    aliases: tuple[str, ...]
    """Other names that find it."""

    def load(self) -> ModuleType:
        """The engine package, ``referee.systems.<name>``."""
        return importlib.import_module(f"referee.systems.{self.name}")


SYSTEMS: dict[str, System] = {
    s.name: s
    for s in (
        System("gurps", "GURPS success rolls, contests, reactions, damage", ("gurps4e",)),
        System("fudge", "Fudge dice and the trait ladder (Psi-punk)", ("psi-punk", "fate")),
        System("swn", "Stars Without Number (revised)", ("stars-without-number",)),
    )
}
"""The registered systems by canonical name."""


def get_system(name: str) -> System:
    """A system by name or alias, case-insensitively.

    Raises:
        RuleError: no system has that name.
    """
    key = name.strip().casefold()
    for system in SYSTEMS.values():
        if key == system.name or key in system.aliases:
            return system
    known = ", ".join(sorted(SYSTEMS))
    raise RuleError(f"unknown rule system {name!r} (known: {known})")
