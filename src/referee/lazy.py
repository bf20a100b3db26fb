"""Packages whose names are imported on first use (PEP 562), for the command line's
start-up (issue 74).

A rule system's package exports the names of all its modules, but a command needs
a few: ``referee gurps check 12`` needs GURPS's success rolls, not its exchange (about
90 ms of imports). :func:`export` makes a package load each module when one of its
names is first read, and keeps each name what the package's eager imports made it:
where a module and a function share a name (``gurps.damage``), the package's
attribute stays the function when the module is imported.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from importlib import import_module
from types import ModuleType
from typing import Any

__all__ = ["LazyPackage", "export"]


class LazyPackage(ModuleType):
    """A package that imports its exported names' modules on first use."""

    _lazy_from: dict[str, str]
    """Each exported name's module, relative to the package (``"success"``)."""

    def __getattr__(self, name: str) -> Any:
        where = self.__dict__.get("_lazy_from", {}).get(name)
        if where is None:
            return self._submodule(name)
        value = getattr(import_module(f"{self.__name__}.{where}"), name)
        self.__dict__[name] = value
        return value

    def _submodule(self, name: str) -> ModuleType:
        """A module of the package by its name (``gurps.success``), as eager imports left
        each bound on the package."""
        missing = AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        if name.startswith("__"):
            raise missing
        try:
            return import_module(f"{self.__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{self.__name__}.{name}":
                raise
            raise missing from None

    def __setattr__(self, name: str, value: Any) -> None:
        # importing a submodule binds it on its package; an exported name of the same
        # spelling (gurps.damage, the function) keeps its meaning, as with eager imports
        if (
            isinstance(value, ModuleType)
            and value.__name__ == f"{self.__name__}.{name}"
            and name in self.__dict__.get("_lazy_from", {})
        ):
            return
        super().__setattr__(name, value)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._lazy_from})


def export(package: str, modules: Mapping[str, Sequence[str]]) -> None:
    """Make ``package`` (its ``__name__``) import each module of ``modules`` (relative
    name to the names it exports) when one of its names is first read."""
    module = sys.modules[package]
    module.__class__ = LazyPackage
    module.__dict__["_lazy_from"] = {
        name: where for where, names in modules.items() for name in names
    }
