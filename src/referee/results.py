"""The envelope every rolling result shares, across the rule systems.

Each system's results carry their own fields (the dice, the margin, the
ladder, the Shock), and every one of them also answers the same questions the
same way (:class:`Result`): which ``system`` and ``kind``, the one-line
``text``, the ``outcome`` as a word (with ``success`` where the rules have
one), and the exact odds as one shape, :class:`Chances`: named probabilities,
frozen, exact fractions. Contests between two sides use :class:`Versus`.
Who may see a roll is the caller's business, not the result's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, runtime_checkable

__all__ = ["Chances", "Contest", "Result", "Versus"]


@dataclass(frozen=True, slots=True)
class Chances(Mapping[str, Fraction]):
    """Named exact probabilities, in a fixed order: ``success``, ``critical_failure``, ...

    >>> c = Chances.of(success=Fraction(1, 2), critical_success=Fraction(1, 54))
    >>> c["success"], list(c)
    (Fraction(1, 2), ['success', 'critical_success'])
    """

    items_: tuple[tuple[str, Fraction], ...]
    """The probabilities by name, in order."""

    @classmethod
    def of(cls, **named: Fraction) -> Chances:
        """Chances from keyword arguments, in the order given."""
        return cls(tuple(named.items()))

    def __getitem__(self, key: str) -> Fraction:
        for name, p in self.items_:
            if name == key:
                return p
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self.items_)

    def __len__(self) -> int:
        return len(self.items_)


@dataclass(frozen=True, slots=True)
class Versus:
    """Exact odds of a contest between two sides; the three add up to 1."""

    first: Fraction
    """P(the first side wins)."""
    second: Fraction
    """P(the second side wins), ties included when ties go to the second side."""
    tie: Fraction
    """P(nobody wins): 0 when a tie is settled by a rule."""

    @property
    def chances(self) -> Chances:
        """The same odds as :class:`Chances`."""
        return Chances.of(first=self.first, second=self.second, tie=self.tie)


@runtime_checkable
class Result(Protocol):
    """What every rolling result answers, whatever its system."""

    @property
    def system(self) -> str:
        """``gurps``, ``fudge`` or ``swn``."""
        ...

    @property
    def kind(self) -> str:
        """What was resolved: ``success``, ``quick_contest``, ``action``, ``save``, ..."""
        ...

    @property
    def text(self) -> str:
        """The one-line explanation, odds included."""
        ...

    @property
    def outcome(self) -> str:
        """How it came out, as a word: ``critical success``, ``tie``, ``holds``, ``Neutral``."""
        ...

    @property
    def success(self) -> bool | None:
        """Whether it succeeded, where the rules define success (None where they do not)."""
        ...

    @property
    def chances(self) -> Chances:
        """The exact odds, before the roll, named."""
        ...


class _Contested(Protocol):
    @property
    def winner(self) -> int | None: ...

    @property
    def odds(self) -> Versus: ...


class Contest:
    """The envelope of a contest between two sides, for results with ``winner`` and
    ``odds`` (a :class:`Versus`): the outcome names the winner; there is no success."""

    __slots__ = ()

    @property
    def outcome(self: _Contested) -> str:
        """``side 1 wins``, ``side 2 wins`` or ``tie``."""
        return "tie" if self.winner is None else f"side {self.winner} wins"

    @property
    def success(self) -> None:
        """A contest has a winner, not a success."""
        return None

    @property
    def chances(self: _Contested) -> Chances:
        """The odds in the shape every result shares."""
        return self.odds.chances
