"""Plain values read without pydantic: the CLI's start-up (issue 53).

typer 0.29 coerces every parameter of a command through a pydantic ``TypeAdapter``,
built on the parameter's first use, and importing pydantic for it costs 85-100 ms of
``referee gurps check 12``'s start (``bench/bench_startup.py``), a quarter of it. Most
values on a command line are plain: a word, a whole number, a decimal, or nothing
given. :func:`lighten` gives each parameter of a command group a coercion that
answers those itself, exactly as pydantic would (the same value, the same type), reads
a choice (an enum) with typer's own function for it, which its adapter only wraps, and
hands anything else (a number written another way, a bad value or choice) to
typer's own coercion, built then, so that every message and every refusal stays
typer's. Pydantic is imported only when a line needs it.

This reaches into typer's ``_TyperParameter`` (its lazily built ``_runtime_param``):
``tests/test_coercion.py`` checks values drawn at random against typer's own reading,
and that system commands still start without pydantic; every CLI test, that the
answers are unchanged.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from typing import Any, get_args, get_origin

from typer._click import Context
from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer._param_types import choice_coercion_annotation, coerce_cli_choice

__all__ = ["lighten"]

_WHOLE = re.compile(r"-?[0-9]{1,18}")
_DECIMAL = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?")


@dataclass(frozen=True)
class _Plain(RuntimeParam):
    """A parameter's coercion: plain values here, the rest by typer's (pydantic)."""

    descriptor: TypeDescriptor
    _full: list[RuntimeParam] = field(default_factory=list)

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        kind: Any = self.annotation
        if get_origin(kind) is list and isinstance(value, list | tuple):
            (item,) = get_args(kind) or (None,)
            plain = [self._plain(item, v) for v in value]
            if _NO not in plain:  # a list, as typer's adapter gives it
                return plain
        elif (choice := choice_coercion_annotation(kind, self.parameter_info)) is not None:
            # typer's own reading of a choice, which its pydantic adapter only wraps
            with contextlib.suppress(ValueError):  # (a bad one: typer's message, below)
                return coerce_cli_choice(
                    value, choices=choice[0], case_sensitive=choice[1], ctx=ctx
                )
        else:
            got = self._plain(kind, value)
            if got is not _NO:
                return got
        if not self._full:  # anything else: typer's own coercion, built once
            self._full.append(build_runtime_param(self.descriptor))
        return self._full[0]._coerce_value(value, param, ctx)

    def _plain(self, kind: Any, value: Any) -> Any:
        """``value`` as a ``kind`` (a word, a whole number, a decimal within the
        parameter's bounds), as pydantic would read it, or :data:`_NO` for anything
        less plain (typer's coercion then answers, or refuses, in its own words)."""
        if isinstance(value, bool):
            return _NO
        if kind is str and isinstance(value, str):
            return value
        number: Any = _NO
        if kind is int:
            if isinstance(value, int):
                number = value
            elif isinstance(value, str) and _WHOLE.fullmatch(value):
                number = int(value)
        elif kind is float:
            if isinstance(value, float):
                number = value
            elif isinstance(value, str) and _DECIMAL.fullmatch(value):
                number = float(value)
        low, high = self.parameter_info.min, self.parameter_info.max
        if number is _NO or low is not None and number < low or high is not None and number > high:
            return _NO
        return number


_NO = object()
"""Not a plain value: typer's coercion decides."""


def lighten(command: Any) -> None:
    """Give every parameter of ``command`` (a typer click command or group, walked
    whole, with its ``--help`` option, which click makes on first use) the plain
    coercion above, unless typer already built its own."""
    if hasattr(command, "get_help_option"):
        command.get_help_option(Context(command, **(command.context_settings or {})))
    for param in [*getattr(command, "params", ()), getattr(command, "_help_option", None)]:
        desc = getattr(param, "type_descriptor", None)
        if desc is None or getattr(param, "_runtime_param", "") is not None:
            continue
        info = desc.parameter_info
        if desc.file_annotation is None and info.parser is None:  # (else typer's, at once)
            param._runtime_param = _Plain(info, desc.annotation, desc)
    for sub in getattr(command, "commands", {}).values():
        lighten(sub)
