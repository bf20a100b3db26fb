"""The encounter simulator: many fights at once, vectorised with numpy.

Each array row is one encounter; each column one combatant. A round walks the
initiative slots, and in every slot each row's acting combatant stabilizes or
attacks, all rows in a handful of numpy operations. The rules are those of
:mod:`referee.systems.swn.oracle`, which runs them one roll at a time and is
this module's test oracle.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ...errors import RuleError
from ...odds import odds as dice_odds
from ...rng import numpy_seed
from .combat import attack_modifier
from .encounter import Encounter, Target
from .injury import DEATH_ROUNDS, TOOLS

__all__ = ["CHUNK", "Simulation", "Start", "simulate", "wilson"]

CHUNK = 65_536
"""Encounters per vectorised batch; each batch has its own stream from the seed."""
UP, UNCONSCIOUS, MORTAL, STABILIZED, DEAD = range(5)
STATES = {"up": UP, "unconscious": UNCONSCIOUS, "mortally wounded": MORTAL,
          "stabilized": STABILIZED, "dead": DEAD}  # fmt: skip
"""A combatant's state at the start, by name (the room's tracker's conditions)."""
Array = npt.NDArray[Any]


@dataclass(frozen=True, slots=True)
class Start:
    """Where every encounter starts from: a fight already under way (a room's tracker,
    issue 68 §4), one value a combatant, in the encounter's order. Without one, each
    starts at full HP, up, and initiative is rolled (``003``, "Initiative")."""

    hp: tuple[int, ...]
    """Each combatant's HP now."""
    state: tuple[str, ...]
    """Each one's state, a key of :data:`STATES`."""
    rounds_down: tuple[int, ...]
    """The rounds a mortally wounded one has been down (``003``, "Mortal Wounds")."""
    fled: tuple[bool, ...]
    """Out of the fight by a broken morale."""
    order: tuple[int, ...] = ()
    """The order of turns, as combatants' indices (every one once); empty: rolled."""
    turn: int = 0
    """The place in :attr:`order` whose turn it is: the first round starts there."""

    def check(self, enc: Encounter) -> None:
        """Raises RuleError: a value per combatant missing, or an order that is not one."""
        c = len(enc.combatants)
        if not len(self.hp) == len(self.state) == len(self.rounds_down) == len(self.fled) == c:
            raise RuleError(f"a start gives one value a combatant: {c} combatants")
        if any(s not in STATES for s in self.state):
            raise RuleError(f"a start's states are {', '.join(STATES)}")
        if self.order and sorted(self.order) != list(range(c)):
            raise RuleError("a start's order names every combatant once")
        if not 0 <= self.turn < max(1, len(self.order)):
            raise RuleError("a start's turn is a place in its order")


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for ``k`` successes in ``n`` trials (95% by default).

    >>> [round(x, 4) for x in wilson(50, 100)]
    [0.4038, 0.5962]
    """
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Simulation:
    """Counts from ``runs`` simulated encounters; probabilities and intervals derive from them."""

    encounter: Encounter
    runs: int
    seed: int
    wins: tuple[int, ...]
    """Encounters won, per side (in ``encounter.sides`` order)."""
    capped: int
    """Encounters stopped at the round cap, with no winner."""
    survived: tuple[int, ...]
    """Encounters each combatant ended alive (fled counts as alive)."""
    mortally_wounded: tuple[int, ...]
    """Encounters in which each combatant was mortally wounded."""
    saved: tuple[int, ...]
    """Encounters in which each combatant was mortally wounded and lived."""
    fled: tuple[int, ...]
    """Encounters in which each combatant fled."""
    rounds: tuple[int, ...]
    """``rounds[r]``: encounters that lasted ``r`` rounds."""

    def quantile(self, q: float) -> int:
        """The smallest round count with at least a ``q`` share of encounters at or below it."""
        return _quantile(self.rounds, self.runs, q)

    @property
    def mean_rounds(self) -> float:
        """Mean fight length in rounds."""
        return sum(r * c for r, c in enumerate(self.rounds)) / self.runs

    @property
    def rounds_ci95(self) -> tuple[float, float]:
        """A normal-approximation 95% interval on the mean fight length."""
        mean = self.mean_rounds
        var = sum(c * (r - mean) ** 2 for r, c in enumerate(self.rounds)) / max(1, self.runs - 1)
        half = 1.959964 * math.sqrt(var / self.runs)
        return (mean - half, mean + half)

    def quantile_ci95(self, q: float) -> tuple[int, int]:
        """A distribution-free 95% interval on a quantile, from binomial order statistics."""
        half = 1.959964 * math.sqrt(self.runs * q * (1 - q))
        lo = max(0.0, (self.runs * q - half) / self.runs)
        hi = min(1.0, (self.runs * q + half) / self.runs)
        return (_quantile(self.rounds, self.runs, lo), _quantile(self.rounds, self.runs, hi))


def _quantile(hist: tuple[int, ...], n: int, q: float) -> int:
    need = max(1, math.ceil(q * n))
    acc = 0
    for r, c in enumerate(hist):
        acc += c
        if acc >= need:
            return r
    return len(hist) - 1


def simulate(
    enc: Encounter,
    n: int,
    *,
    seed: int | None = None,
    progress: Callable[[int], None] | None = None,
    start: Start | None = None,
) -> Simulation:
    """Fight ``enc`` ``n`` times, in vectorised batches of :data:`CHUNK`, each from
    ``start`` when given (a fight under way; its rounds are counted from there).

    The same ``seed`` gives the same result on any machine; without one, a
    seed is drawn from the OS's secure source and reported in the result.
    ``progress`` is called with the number of encounters done after each batch.

    Raises:
        RuleError: ``n`` is below 1 or above 10⁹; a ``start`` that does not fit ``enc``.
    """

    if not 1 <= n <= 10**9:
        raise RuleError(f"runs {n} must be from 1 to 1000000000")
    if start is not None:
        start.check(enc)
    if seed is None:
        seed = secrets.randbits(63)
    tables = _Tables(enc)
    acc = _Acc(enc)
    done = 0
    for batch, begun in enumerate(range(0, n, CHUNK)):
        rows = min(CHUNK, n - begun)
        rng = np.random.default_rng([numpy_seed(seed) or 0, batch])
        _Batch(tables, rows, rng, start).run(acc)
        done += rows
        if progress is not None:
            progress(done)
    return acc.result(n, seed)


class _Tables:
    """Per-combatant constants as arrays."""

    def __init__(self, enc: Encounter) -> None:
        cs = enc.combatants
        self.enc = enc
        self.c = len(cs)
        self.sides = len(enc.sides)
        self.side = np.array([enc.side_index(c.side) for c in cs])
        self.members = [np.flatnonzero(self.side == s) for s in range(self.sides)]
        self.size = np.array([len(m) for m in self.members])
        self.pc = np.array([c.pc for c in cs])
        self.hp = np.array([c.hp for c in cs], dtype=np.int64)
        self.ac = np.array([c.ac for c in cs])
        self.dex = np.array([c.dex_mod for c in cs])
        self.bonus = np.array(
            [attack_modifier(c.attack_bonus, c.skill, c.attribute_mod) for c in cs]
        )
        self.extra = np.array([c.attribute_mod + c.damage_bonus for c in cs])
        self.lethal = np.array([c.weapon.lethal for c in cs])
        self.floor = np.array(
            [
                0 if c.weapon.shock is None else max(0, c.weapon.shock + e)
                for c, e in zip(cs, self.extra, strict=True)
            ]
        )
        self.miss = np.zeros((self.c, self.c), dtype=np.int64)
        for a, c in enumerate(cs):
            w = c.weapon
            if w.shock is not None and w.shock_ac is not None:
                self.miss[a] = np.where(self.ac <= w.shock_ac, max(0, w.shock + self.extra[a]), 0)
        self.morale = np.array([99 if c.morale is None or c.pc else c.morale for c in cs])
        self.checks = np.array([c.morale is not None and not c.pc for c in cs])
        self.heal = np.array(
            [(-1 if c.heal is None else c.heal) + c.heal_attribute_mod for c in cs]
        )
        self.medkit = np.array([c.medkit for c in cs])
        self.lazarus = np.array([c.lazarus for c in cs])
        self.weakest = np.array([s.target is Target.WEAKEST for s in enc.sides])
        self.stabilizes = np.array([s.stabilize for s in enc.sides])
        self.flees = np.array([s.flee for s in enc.sides])
        self.values: list[Array] = []
        self.cdf: list[Array] = []
        for c in cs:
            dist = sorted(dice_odds(c.weapon.damage).distribution.items())
            self.values.append(np.array([v for v, _ in dist], dtype=np.int64))
            cdf = np.cumsum([float(p) for _, p in dist])
            cdf[-1] = 1.0
            self.cdf.append(cdf)


class _Acc:
    """Counts summed over batches."""

    def __init__(self, enc: Encounter) -> None:
        c, s = len(enc.combatants), len(enc.sides)
        self.enc = enc
        self.wins = np.zeros(s, dtype=np.int64)
        self.capped = 0
        self.survived = np.zeros(c, dtype=np.int64)
        self.mortal = np.zeros(c, dtype=np.int64)
        self.saved = np.zeros(c, dtype=np.int64)
        self.fled = np.zeros(c, dtype=np.int64)
        self.rounds = np.zeros(enc.max_rounds + 1, dtype=np.int64)

    def result(self, n: int, seed: int) -> Simulation:
        def t(a: Array) -> tuple[int, ...]:
            return tuple(int(x) for x in a)

        return Simulation(
            self.enc, n, seed, t(self.wins), self.capped, t(self.survived), t(self.mortal),
            t(self.saved), t(self.fled), t(self.rounds),
        )  # fmt: skip


class _Batch:
    """One batch of encounters, fought round by round."""

    def __init__(
        self, t: _Tables, n: int, rng: np.random.Generator, start: Start | None = None
    ) -> None:
        self.t, self.n, self.rng = t, n, rng
        c = t.c
        self.ix = np.arange(n)
        self.hp = np.broadcast_to(t.hp, (n, c)).copy()
        self.cond = np.zeros((n, c), dtype=np.int8)
        self.fled = np.zeros((n, c), dtype=bool)
        self.rdown = np.zeros((n, c), dtype=np.int16)
        self.ever = np.zeros((n, c), dtype=bool)
        self.patches = np.broadcast_to(t.lazarus, (n, c)).copy()
        self.losses = np.zeros((n, t.sides), dtype=np.int64)
        self.live = np.ones(n, dtype=bool)
        self.capped = np.zeros(n, dtype=bool)
        self.winner = np.full(n, -1)
        self.rounds = np.full(n, t.enc.max_rounds)
        init = rng.integers(1, 9, (n, c)) + t.dex
        key = -4.0 * init + 2.0 * ~t.pc + rng.random((n, c))
        self.order = np.argsort(key, axis=1, kind="stable")
        self.turn = 0
        if start is not None:
            self.hp[:] = np.array(start.hp, dtype=np.int64)
            self.cond[:] = np.array([STATES[s] for s in start.state], dtype=np.int8)
            self.rdown[:] = np.array(start.rounds_down, dtype=np.int16)
            self.fled[:] = np.array(start.fled, dtype=bool)
            self.ever[:] = self.cond == MORTAL
            down = self.cond[0] != UP  # the casualties so far, for morale (003)
            self.losses[:] = np.array([int(down[m].sum()) for m in t.members])
            if start.order:
                self.order = np.broadcast_to(np.array(start.order), (n, c)).copy()
                self.turn = start.turn

    def up(self) -> Array:
        up: Array = (self.cond == UP) & ~self.fled
        return up

    def run(self, acc: _Acc) -> None:
        t = self.t
        for r in range(1, t.enc.max_rounds + DEATH_ROUNDS + 2):
            if r > t.enc.max_rounds:
                self.capped |= self.live
                self.live &= False
            running = ~self.capped & (self.live | (self.cond == MORTAL).any(axis=1))
            if not running.any():
                break
            for k in range(self.turn if r == 1 else 0, t.c):
                self.slot(self.order[:, k], running, r)
            mortal = (self.cond == MORTAL) & running[:, None]
            self.rdown[mortal] += 1
            self.cond[mortal & (self.rdown > DEATH_ROUNDS)] = DEAD
        alive = self.cond != DEAD
        acc.wins += np.bincount(self.winner[self.winner >= 0], minlength=t.sides)
        acc.capped += int(self.capped.sum())
        acc.survived += alive.sum(axis=0)
        acc.mortal += self.ever.sum(axis=0)
        acc.saved += (self.ever & alive).sum(axis=0)
        acc.fled += self.fled.sum(axis=0)
        acc.rounds += np.bincount(self.rounds, minlength=t.enc.max_rounds + 1)

    def slot(self, actor: Array, running: Array, r: int) -> None:
        t, ix = self.t, self.ix
        act = running & (self.cond[ix, actor] == UP) & ~self.fled[ix, actor]
        side_a = t.side[actor]
        ally_mortal = (t.side[None, :] == side_a[:, None]) & (self.cond == MORTAL)
        stab = act & t.stabilizes[side_a] & ally_mortal.any(axis=1)
        if stab.any():
            self.stabilize(np.flatnonzero(stab), actor, ally_mortal)
        atk = act & ~stab & self.live
        if atk.any():
            self.attack(np.flatnonzero(atk), actor[atk], side_a[atk], r)

    def stabilize(self, rows: Array, actor: Array, ally_mortal: Array) -> None:
        t, c = self.t, self.t.c
        a = actor[rows]
        urgency = np.where(ally_mortal[rows], self.rdown[rows] * c + (c - 1 - np.arange(c)), -1)
        victim = urgency.argmax(axis=1)
        patch = self.patches[rows, a] > 0
        self.patches[rows[patch], a[patch]] -= 1
        base = np.where(
            patch, TOOLS["lazarus"], np.where(t.medkit[a], TOOLS["medkit"], TOOLS["none"])
        )
        need = base + self.rdown[rows, victim]
        total = self.rng.integers(1, 7, (len(rows), 2)).sum(axis=1) + t.heal[a]
        ok = total >= need
        self.cond[rows[ok], victim[ok]] = STABILIZED

    def attack(self, rows: Array, a: Array, side_a: Array, r: int) -> None:
        t, rng = self.t, self.rng
        enemy = (t.side[None, :] != side_a[:, None]) & self.up()[rows]
        weak = t.weakest[side_a]
        target = np.where(enemy, rng.random(enemy.shape), -1.0).argmax(axis=1)
        if weak.any():
            key = np.where(enemy, self.hp[rows] * t.c + np.arange(t.c), np.iinfo(np.int64).max)
            target = np.where(weak, key.argmin(axis=1), target)
        d20 = rng.integers(1, 21, len(rows))
        hit = d20 + t.bonus[a] >= t.ac[target]
        rolled = np.empty(len(rows), dtype=np.int64)
        u = rng.random(len(rows))
        for c in np.unique(a):
            sel = a == c
            rolled[sel] = t.values[c][np.searchsorted(t.cdf[c], u[sel], side="right")]
        on_hit = np.maximum(np.maximum(rolled + t.extra[a], 0), t.floor[a])
        dmg = np.where(hit, on_hit, t.miss[a, target])
        left = self.hp[rows, target] - dmg
        self.hp[rows, target] = np.maximum(left, 0)
        down = (dmg > 0) & (left <= 0)
        if down.any():
            self.casualties(rows[down], target[down], t.lethal[a[down]])
        self.end_fights(r)

    def casualties(self, rows: Array, target: Array, lethal: Array) -> None:
        t = self.t
        self.cond[rows, target] = np.where(lethal, MORTAL, UNCONSCIOUS)
        self.rdown[rows, target] = 0
        self.ever[rows, target] |= lethal
        s = t.side[target]
        before = self.losses[rows, s]
        self.losses[rows, s] += 1
        first = before == 0
        half = (2 * before < t.size[s]) & (t.size[s] <= 2 * (before + 1))
        # One casualty is one event: the first casualty that is also 50% losses checks once.
        go = (first | half) & t.flees[s]
        if go.any():
            for side in range(t.sides):
                hit_rows = rows[go & (s == side)]
                if len(hit_rows) == 0:
                    continue
                for k in t.members[side]:
                    if not t.checks[k]:
                        continue
                    check = hit_rows[(self.cond[hit_rows, k] == UP) & ~self.fled[hit_rows, k]]
                    roll = self.rng.integers(1, 7, (len(check), 2)).sum(axis=1)
                    self.fled[check[roll > t.morale[k]], k] = True

    def end_fights(self, r: int) -> None:
        t = self.t
        up = self.up()
        side_up = np.stack([up[:, m].any(axis=1) for m in t.members], axis=1)
        ending = self.live & (side_up.sum(axis=1) <= 1)
        if not ending.any():
            return
        rows = np.flatnonzero(ending)
        won = np.where(side_up[rows].any(axis=1), side_up[rows].argmax(axis=1), -1)
        self.winner[rows] = won
        self.rounds[rows] = r
        self.live[rows] = False
        losers = (t.side[None, :] != won[:, None]) & (self.cond[rows] == MORTAL)
        self.cond[rows] = np.where(losers, DEAD, self.cond[rows])
