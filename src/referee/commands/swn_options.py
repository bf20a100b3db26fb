"""The SWN commands' own options: the attribute options (``--dex 14``, ``--dex-mod 1``),
which remember how each was given so that an override of a sheet can say so,
``--sheet`` repeated for initiative, and the options a roll made from a sheet is
written with when it has none (:mod:`.resolving`)."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Annotated, Any

import typer

from ..systems import swn
from .sheeted import Raw, labelled, resolved_as

__all__ = [
    "ENCOUNTER_HELP",
    "PARTY_HELP",
    "Given",
    "SheetsOpt",
    "attr_params",
    "gather_attrs",
    "resolved_options",
    "skill_words",
]

SheetsOpt = Annotated[list[str] | None, typer.Option(
    "--sheet", metavar="FILE", help="A PC's sheet (a TOML sheet or a Foundry swnr export, "
    "or example:NAME): the PC rolls with the sheet's Dex modifier. Repeat for each PC.",
)]  # fmt: skip
PARTY_HELP = (
    "A TOML file of [[combatants]] (name, dex, pc), or example:party.toml; or only --sheet."
)
ENCOUNTER_HELP = (
    "An encounter TOML file, or example:NAME for one shipped with referee "
    "('referee sheet --examples' lists them)."
)


class Given(dict[str, int]):
    """The attribute options given (``--dex 14``, ``--dex-mod 1``): each attribute's
    modifier, and in :attr:`flags` how it was given, for the text when it overrides
    a sheet."""

    def __init__(self) -> None:
        super().__init__()
        self.flags: dict[str, tuple[str, int]] = {}
        """``dex`` to ``("--dex", 14)`` or ``("--dex-mod", 1)``."""


def attr_params() -> list[inspect.Parameter]:
    """``--str``/``--str-mod`` ... ``--cha``/``--cha-mod``: the attribute options."""
    return [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                          annotation=Annotated[int | None, typer.Option(flag, help=help)])
        for a in swn.ATTRIBUTES
        for name, flag, help in ((a, f"--{a}", f"{a.title()} score 3-18."),
                                 (f"{a}_mod", f"--{a}-mod", f"{a.title()} modifier."))
    ]  # fmt: skip


def gather_attrs(kwargs: dict[str, Any]) -> None:
    """The attribute options as ``attrs``: a :class:`Given`, name to modifier."""
    attrs = Given()
    for a in swn.ATTRIBUTES:
        score, mod = kwargs.pop(a), kwargs.pop(f"{a}_mod")
        if score is not None or mod is not None:
            attrs[a] = swn.resolve_modifier(a, score, mod)
            attrs.flags[a] = (f"--{a}", score) if score is not None else (f"--{a}-mod", mod)
    kwargs["attrs"] = attrs


def skill_words(level: int | None) -> dict[str, Raw]:
    """A skill level as typed with no sheet: ``--skill N``, or ``--untrained`` (None)."""
    return {"skill": None if level is None else str(level), "untrained": level is None}


def resolved_options(
    ctx: typer.Context,
    label: str | None,
    mods: Mapping[str, int] | None,
    given: Mapping[str, Raw],
    clear: bool = False,
) -> None:
    """Record what the command is with no sheet (:func:`.sheeted.resolved_as`): these
    parameters, the label (the names read, then the player's label), and the
    attribute modifiers ``mods`` as ``--KEY-mod`` (with ``clear``, in place of every
    attribute option given)."""
    params = dict(given)
    if label is not None:
        params["label"] = labelled(label, ctx.params.get("label"))
    for key in swn.ATTRIBUTES if clear else ():
        params[key] = params[f"{key}_mod"] = None
    for key, value in (mods or {}).items():
        params[key], params[f"{key}_mod"] = None, str(value)
    resolved_as(ctx, **params)
