"""What the GURPS encounter simulator (:mod:`.simulate`) counts, and the figures it
reports from the counts: shares of the runs, the mean and quantiles of the rounds, and
means with their normal-approximation intervals."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .sim_encounter import Encounter
from .sim_tables import Array, Tables

__all__ = ["Counts", "Simulation"]


@dataclass(frozen=True)
class Simulation:
    """Counts from ``runs`` simulated fights; probabilities and intervals derive from them."""

    encounter: Encounter
    runs: int
    seed: int
    wins: tuple[int, ...]
    """Fights won, per side (in ``encounter.sides`` order)."""
    draws: int
    """Fights with no winner: the round cap, or nobody left up."""
    rounds: tuple[int, ...]
    """``rounds[r]``: fights that lasted ``r`` rounds."""
    unconscious: tuple[int, ...]
    """Fights each combatant ended unconscious (or dying), per combatant."""
    dead: tuple[int, ...]
    fled: tuple[int, ...]
    crippled: tuple[dict[str, int], ...]
    """Per combatant: fights in which each limb was the first crippled."""
    hp_sum: tuple[float, ...]
    hp_sq: tuple[float, ...]
    """Sums of each combatant's HP left and of its square (for the mean's interval)."""
    dealt_sum: tuple[float, ...]
    dealt_sq: tuple[float, ...]
    """Sums of the injury each combatant dealt, and of its square."""
    first: dict[tuple[int, int], tuple[int, int, int, int, int]]
    """The first exchange, by (attacker, target): fights, hits, defended, injures,
    major wounds."""

    def quantile(self, q: float) -> int:
        """The smallest round count with at least a ``q`` share of fights at or below it."""
        need = max(1, int(np.ceil(q * self.runs)))
        return int(np.searchsorted(np.cumsum(self.rounds), need))

    def quantile_ci95(self, q: float) -> tuple[int, int]:
        """A distribution-free 95% interval on a quantile, from binomial order
        statistics (as ``swn simulate`` gives it)."""
        half = 1.959964 * float(np.sqrt(self.runs * q * (1 - q))) / self.runs
        return (self.quantile(max(0.0, q - half)), self.quantile(min(1.0, q + half)))

    @property
    def mean_rounds(self) -> float:
        """Mean fight length in rounds."""
        return sum(r * c for r, c in enumerate(self.rounds)) / self.runs

    def rounds_ci(self, z: float = 1.959964) -> tuple[float, float]:
        """A normal-approximation interval on the mean fight length (95% by default)."""
        mean = self.mean_rounds
        var = sum(c * (r - mean) ** 2 for r, c in enumerate(self.rounds)) / max(1, self.runs - 1)
        half = z * float(np.sqrt(var / self.runs))
        return (mean - half, mean + half)

    def mean_ci(self, total: float, squares: float, z: float = 1.959964) -> tuple[float, ...]:
        """A sum's mean per fight with its normal-approximation interval."""
        n = self.runs
        mean = total / n
        var = max(0.0, squares / n - mean * mean) * n / max(1, n - 1)
        half = z * float(np.sqrt(var / n))
        return (mean, mean - half, mean + half)


class Counts:
    """Counts summed over batches (the simulator adds each batch's fights)."""

    def __init__(self, t: Tables) -> None:
        c = t.c
        self.t = t
        self.wins = np.zeros(len(t.enc.sides), dtype=np.int64)
        self.rounds = np.zeros(t.enc.max_rounds + 1, dtype=np.int64)
        self.unconscious = np.zeros(c, dtype=np.int64)
        self.dead = np.zeros(c, dtype=np.int64)
        self.fled = np.zeros(c, dtype=np.int64)
        self.crippled = np.zeros((c, len(t.limbs) + 1), dtype=np.int64)
        self.hp = np.zeros((2, c))
        self.dealt = np.zeros((2, c))
        self.first = np.zeros((c * c, 5), dtype=np.int64)

    def result(self, n: int, seed: int) -> Simulation:
        t = self.t

        def ints(a: Array) -> tuple[int, ...]:
            return tuple(int(x) for x in a)

        crippled = tuple(
            {
                limb: int(self.crippled[i, k])
                for k, limb in enumerate(t.limbs)
                if self.crippled[i, k]
            }
            for i in range(t.c)
        )
        first = {
            (k // t.c, k % t.c): (int(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]))
            for k, r in enumerate(self.first) if r[0]
        }  # fmt: skip
        draws = n - int(self.wins.sum())
        return Simulation(
            t.enc, n, seed, ints(self.wins), draws, ints(self.rounds), ints(self.unconscious),
            ints(self.dead), ints(self.fled), crippled, tuple(map(float, self.hp[0])),
            tuple(map(float, self.hp[1])), tuple(map(float, self.dealt[0])),
            tuple(map(float, self.dealt[1])), first,
        )  # fmt: skip
