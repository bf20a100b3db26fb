"""The GURPS encounter simulator: many fights at once, vectorised with numpy.

Each array row is one fight; each column one combatant. A round walks the turn order,
and in every slot each row's acting combatant recovers, falls, flees, defends all-out
or attacks, all rows in a handful of numpy operations. The rules are those of
:mod:`.sim_oracle`, which plays one fight at a time through :func:`.exchange.exchange`
and is this module's test oracle.

Nothing is written twice: what numpy cannot run it takes as tables from the rule
modules themselves, built once per encounter: each 3d6 roll's outcome and margin
against each effective skill (:func:`.success.outcome`, :func:`.success.margin`,
:func:`.melee.misses_by_one`); each attack's effective skill (:func:`.melee.
effective_attack`); each defense chosen and its level in every state
(:func:`.target.choose_defense`, :func:`.defense.defense_modifiers`); B398's table
(:data:`.locations.RANDOM_TABLE`); each critical hit's effect (:data:`.criticals.
CRITICAL_HIT`, :func:`.criticals.head_blow`, :func:`.exchange.critical_effect`); and
each blow's injury, shock, major wound, crippling and knockdown roll for every
(damage, target, location, critical effect, damage total) by :func:`.blows.blow`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

import numpy as np

from ...errors import RuleError
from ...rng import numpy_seed
from .sim_encounter import Encounter
from .sim_moves import close_or_aim, stand_or_reload
from .sim_oracle import DEAD, FLED, UNCONSCIOUS, UP
from .sim_result import Counts, Simulation
from .sim_start import _POSTURE, POSTURE_KNEELING, POSTURE_PRONE, STATES, Start
from .sim_tables import Array, Tables

__all__ = ["CHUNK", "Simulation", "Start", "simulate"]

_SUMS = np.array([a + b + c for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)])
"""The 216 faces of 3d6, each as its total."""
CHUNK = 32_768
"""Fights per vectorised batch; each batch has its own stream from the seed."""


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

    The same ``seed`` gives the same result on any machine; without one, a seed is
    drawn from the OS's secure source and reported in the result. ``progress`` is
    called with the number of fights done after each batch.

    Raises:
        RuleError: ``n`` is below 1 or above 10⁹; a ``start`` that does not fit ``enc``.
    """
    if not 1 <= n <= 10**9:
        raise RuleError(f"runs {n} must be from 1 to 1000000000")
    if start is not None:
        start.check(enc)
    if seed is None:
        seed = secrets.randbits(63)
    t = Tables(enc)
    acc = Counts(t)
    done = 0
    for batch, begun in enumerate(range(0, n, CHUNK)):
        rows = min(CHUNK, n - begun)
        rng = np.random.default_rng([numpy_seed(seed) or 0, batch])
        _Batch(t, rows, rng, start).run(acc)
        done += rows
        if progress is not None:
            progress(done)
    return acc.result(n, seed)


class _Batch:
    """One batch of fights, fought round by round."""

    def __init__(
        self, t: Tables, n: int, rng: np.random.Generator, start: Start | None = None
    ) -> None:
        self.t, self.n, self.rng = t, n, rng
        c = t.c
        self.hp = np.broadcast_to(t.hp, (n, c)).copy()
        self.cond = np.zeros((n, c), dtype=np.int8)
        self.stunned = np.zeros((n, c), dtype=bool)
        self.shock = np.zeros((n, c), dtype=np.int64)
        self.parried = np.zeros((n, c), dtype=np.int64)
        self.retreated = np.zeros((n, c), dtype=bool)
        self.aoa = np.zeros((n, c), dtype=bool)
        self.aod = np.zeros((n, c), dtype=bool)
        self.crippled = np.full((n, c), len(t.limbs), dtype=np.int64)
        self.dealt = np.zeros((n, c), dtype=np.int64)
        self.posture = np.zeros((n, c), dtype=np.int8)
        self.loaded = np.broadcast_to(t.shots, (n, c)).copy()
        self.readying = np.zeros((n, c), dtype=np.int64)
        self.aimed = np.zeros((n, c), dtype=np.int64)
        self.aim_at = np.full((n, c), -1, dtype=np.int64)
        self.dist: Array | None = None
        if t.far:
            self.dist = np.broadcast_to(t.dist0.astype(np.int16), (n, c, c)).copy()
        self.first = np.zeros(n, dtype=bool)
        self.first_counts = np.zeros((c * c, 5), dtype=np.int64)
        self.live = np.ones(n, dtype=bool)
        self.winner = np.full(n, -1)
        self.rounds = np.full(n, t.enc.max_rounds)
        key = -t.speed[None, :] + 1e-6 * rng.random((n, c))
        self.order = np.argsort(key, axis=1, kind="stable")
        self.ix = np.arange(n)
        self.turn = 0
        if start is not None:
            self.hp[:] = np.array(start.hp, dtype=np.int64)
            self.cond[:] = np.array([STATES[s] for s in start.state], dtype=np.int8)
            self.stunned[:] = np.array(start.stunned, dtype=bool)
            self.shock[:] = np.array(start.shock, dtype=np.int64)
            if start.posture:
                self.posture[:] = np.array([_POSTURE[p] for p in start.posture], dtype=np.int8)
            if start.order:
                self.order = np.broadcast_to(np.array(start.order), (n, c)).copy()
                self.turn = start.turn

    def d3(self, k: int) -> Array:
        """``k`` rolls of 3d6: each of the 216 equally likely faces, as its total."""
        out: Array = _SUMS[self.rng.integers(0, 216, k)]
        return out

    def ht_roll(
        self, who: Array, rows: Array, mod: Array | int = 0, of: Array | None = None
    ) -> tuple[Array, Array]:
        """HT rolls (or rolls against ``of``, such as Will) for ``who`` in ``rows``: each
        margin and whether it is a critical failure (``000``, "Success Rolls", "Critical
        Success and Failure", 4th edition; the tables of :mod:`.sim_tables`)."""
        t = self.t
        eff = np.clip((t.ht if of is None else of)[who] + mod, t.lo, t.hi) - t.lo
        total = self.d3(len(rows))
        return t.margin[eff, total], t.crit_fail[eff, total]

    _ROW_ARRAYS = ("hp", "cond", "stunned", "shock", "parried", "retreated", "aoa", "aod",
                   "crippled", "dealt", "first", "live", "winner", "rounds", "order", "posture",
                   "loaded", "readying", "aimed", "aim_at")  # fmt: skip

    def run(self, acc: Counts) -> None:
        t = self.t
        for r in range(1, t.enc.max_rounds + 1):
            if not self.live.any():
                break
            for k in range(self.turn if r == 1 else 0, t.c):
                self.slot(self.order[:, k], r)
            if 2 * int(self.live.sum()) < self.n:  # set the finished fights aside
                self.tally(acc, ~self.live)
                keep = self.live
                for name in self._ROW_ARRAYS:
                    setattr(self, name, getattr(self, name)[keep])
                if self.dist is not None:
                    self.dist = self.dist[keep]
                self.n = len(self.live)
                self.ix = np.arange(self.n)
        self.tally(acc, np.ones(self.n, dtype=bool))
        acc.first += self.first_counts

    def tally(self, acc: Counts, done: Array) -> None:
        """Add the fights ``done`` to the counts."""
        t = self.t
        winner, cond = self.winner[done], self.cond[done]
        acc.wins += np.bincount(winner[winner >= 0], minlength=len(t.enc.sides))
        acc.rounds += np.bincount(self.rounds[done], minlength=t.enc.max_rounds + 1)
        acc.unconscious += (cond == UNCONSCIOUS).sum(axis=0)
        acc.dead += (cond == DEAD).sum(axis=0)
        acc.fled += (cond == FLED).sum(axis=0)
        crippled = self.crippled[done]
        for i in range(t.c):
            acc.crippled[i] += np.bincount(crippled[:, i], minlength=len(t.limbs) + 1)
        hp = self.hp[done].astype(float)
        acc.hp += np.stack([hp.sum(axis=0), (hp * hp).sum(axis=0)])
        dealt = self.dealt[done].astype(float)
        acc.dealt += np.stack([dealt.sum(axis=0), (dealt * dealt).sum(axis=0)])

    def slot(self, actor: Array, r: int) -> None:
        """Each row's combatant in this slot takes its turn: the oracle's rule 2
        (*GURPS Basic Set*, 4th edition: B420 stun, B419 0 HP and reeling, B366, B365)."""
        t = self.t
        rows = np.flatnonzero(self.live & (self.cond[self.ix, actor] == UP))
        if len(rows) == 0:
            return
        a = actor[rows]
        self.parried[rows, a] = 0
        self.retreated[rows, a] = False
        self.aoa[rows, a] = False
        self.aod[rows, a] = False
        felt = self.shock[rows, a]
        self.shock[rows, a] = 0
        stun = self.stunned[rows, a]
        if stun.any():
            sr, sa = rows[stun], a[stun]
            margin, _ = self.ht_roll(sa, sr)
            self.stunned[sr, sa] = margin < 0
            self.aimed[sr, sa] = 0  # B364: a turn of anything but Aim ends it
        go = ~stun
        low = go & (self.hp[rows, a] <= 0)
        if low.any():
            lr, la = rows[low], a[low]
            margin, _ = self.ht_roll(la, lr, -((-self.hp[lr, la]) // t.hp[la]))
            self.cond[lr[margin < 0], la[margin < 0]] = UNCONSCIOUS
            go[np.flatnonzero(low)[margin < 0]] = False
        reeling = go & (3 * self.hp[rows, a] < t.hp[a])
        flee = reeling & t.flee[a]
        self.cond[rows[flee], a[flee]] = FLED
        aod = reeling & ~t.flee[a] & t.aod[a]
        self.aod[rows[aod], a[aod]] = True
        go &= ~flee & ~aod
        go = stand_or_reload(self, rows, a, go)
        if go.any():
            gr, ga, gf = rows[go], a[go], felt[go]
            j = self.pick(gr, ga)
            act, d = close_or_aim(self, gr, ga, j)
            self.attack(gr[act], ga[act], gf[act], j[act], d[act])
        self.end_fights(rows, r)

    def pick(self, rows: Array, a: Array) -> Array:
        """Whom each attacks, by its tactic (:class:`.sim_encounter.Pick`)."""
        t = self.t
        foes = (self.cond[rows] == UP) & (t.side[None, :] != t.side[a][:, None])
        big = np.iinfo(np.int64).max
        how = t.pick[a]
        out: Array = np.where(foes, t.first_rank, big).argmin(axis=1)
        for code, key in ((1, None), (2, t.danger_rank)):
            sel = how == code
            if not sel.any():
                continue
            rank = self.hp[rows[sel]] * t.c + t.first_rank if key is None else key
            out[sel] = np.where(foes[sel], rank, big).argmin(axis=1)
        return out

    def attack(self, rows: Array, a: Array, felt: Array, j: Array, d: Array) -> None:
        """One exchange a row, ``a`` attacking ``j`` at ``d`` yards, as :func:`.exchange.
        exchange` resolves it (*GURPS Basic Set*, 4th edition: B364 Aim, B365,
        B369-B381, B398-B400, B550 range, B551 a low target, B556), from the tables."""
        t = self.t
        allows = t.against[a]  # what the attack allows (B375-B377; .sim_oracle.AGAINST)
        defends = t.can_defend[j, allows] & ~self.aoa[rows, j]
        all_out = t.aoa[a] & (self.stunned[rows, j] | ~defends)
        self.aoa[rows, a] = all_out
        eff = t.attack_eff[a, all_out.astype(np.int64), np.minimum(felt, t.max_shock)]
        aimed = np.where(self.aim_at[rows, a] == j, np.minimum(self.aimed[rows, a], 3), 0)
        pj = self.posture[rows, j].astype(np.int64)
        eff = eff + t.aim_eff[a, aimed] + t.low[a, pj] + np.where(t.ranged[a], t.range_pen[d], 0)
        ok = eff >= 3
        rows, a, j, eff, allows, defends = rows[ok], a[ok], j[ok], eff[ok], allows[ok], defends[ok]
        pj = pj[ok]
        m = len(rows)
        if m == 0:
            return
        self.aimed[rows, a] = 0
        self.loaded[rows, a] -= t.shots[a] > 0
        e = np.clip(eff, t.lo, t.hi) - t.lo
        roll = self.d3(m)
        success = t.success[e, roll]
        crit = t.crit_success[e, roll]
        torso = ~success & t.aimed[a] & t.miss1[e, roll]
        hit = success | torso
        # the defense: none after a critical hit (B381) or against All-Out Attack (B365)
        rolls_def = hit & ~crit & defends
        retreat = t.retreat[j] & (allows == 0) & ~self.retreated[rows, j]  # melee only (B377)
        retreat &= POSTURE_KNEELING != pj  # B551: no retreat kneeling
        reeling = 3 * self.hp[rows, j] < t.hp[j]
        parried = np.minimum(self.parried[rows, j], t.max_parried)
        i64 = np.int64
        state = (j, allows, self.stunned[rows, j].astype(i64), reeling.astype(i64),
                 retreat.astype(i64), self.aod[rows, j].astype(i64), parried, pj)  # fmt: skip
        kind = t.def_kind[state]
        level = np.clip(t.def_level[state], t.lo, t.hi) - t.lo
        rolls_def &= kind >= 0
        defended = rolls_def & t.success[level, self.d3(m)]
        dr, dj = rows[rolls_def], j[rolls_def]
        self.retreated[dr, dj] |= retreat[rolls_def]
        self.parried[dr, dj] += kind[rolls_def] == 1
        self.aimed[dr, dj] = 0  # B364: a defense spoils an Aim
        land = hit & ~defended
        loc = np.where(t.aim_random[a], t.random_loc[self.d3(m)], t.aim_loc[a])
        loc = np.where(torso, t.torso, loc)
        effect = np.where(crit, t.crit_effect[a, self.d3(m), loc], 0)
        total = self.damage(a)
        pair = t.pair[a, j]
        inj = np.where(land, t.injury[pair, effect, loc, total], 0)
        major = land & t.major[pair, effect, loc, total] & (inj > 0)
        first = ~self.first[rows]
        if first.any():
            self.first[rows[first]] = True
            code = a[first] * t.c + j[first]
            flags = np.stack([np.ones(first.sum(), dtype=np.int64), hit[first],
                              (hit & ~land)[first], (inj > 0)[first], major[first]],
                             axis=1)  # fmt: skip
            np.add.at(self.first_counts, code, flags)
        hurt = inj > 0
        if hurt.any():
            self.wound(rows[hurt], a[hurt], j[hurt], inj[hurt], pair[hurt], effect[hurt],
                       loc[hurt], total[hurt])  # fmt: skip

    def damage(self, a: Array) -> Array:
        """The damage dice's sum, as an index into the blow tables (its minimum is 0)."""
        t = self.t
        out = np.zeros(len(a), dtype=np.int64)
        u = self.rng.random(len(a))
        for count in np.unique(t.dice[a]):
            sel = t.dice[a] == count
            out[sel] = np.searchsorted(t.dice_cdf[int(count)], u[sel], side="right")
        return out

    def wound(self, rows: Array, a: Array, j: Array, inj: Array, pair: Array, effect: Array,
              loc: Array, total: Array) -> None:  # fmt: skip
        """What the blows that injured do (*GURPS Basic Set*, 4th edition: B419 shock and
        the HT rolls to live, B420 knockdown and stunning, B421 crippling)."""
        t = self.t
        before = self.hp[rows, j]
        after = before - inj
        self.hp[rows, j] = after
        np.add.at(self.dealt, (rows, a), inj)
        cap = np.where(t.lpt[j] | (effect == t.double_shock), 8, 4)
        self.shock[rows, j] = np.minimum(
            self.shock[rows, j] + t.shock[pair, effect, loc, total], cap
        )
        limb = t.cripples[pair, effect, loc, total]
        new = (limb >= 0) & (self.crippled[rows, j] == len(t.limbs))
        self.crippled[rows[new], j[new]] = limb[new]
        full = t.hp[j]
        dead = after <= -5 * full
        self.cond[rows[dead], j[dead]] = DEAD
        out = dead.copy()
        for k in range(1, 5):
            cross = ~out & (after <= -k * full) & (-k * full < before)
            if not cross.any():
                continue
            margin, cf = self.ht_roll(j[cross], rows[cross])
            failed = margin < 0
            dies = failed & ((margin < -2) | cf)
            cr, cj = rows[cross], j[cross]
            self.cond[cr[failed], cj[failed]] = np.where(dies[failed], DEAD, UNCONSCIOUS)
            out[np.flatnonzero(cross)[failed]] = True
        kd = t.knockdown[pair, effect, loc, total]
        roll = ~out & (kd != t.no_knockdown)
        if roll.any():
            kr, kj = rows[roll], j[roll]
            margin, cf = self.ht_roll(kj, kr, kd[roll])
            ko = (margin <= -5) | cf
            self.cond[kr[ko], kj[ko]] = UNCONSCIOUS
            stun = ~ko & (margin < 0)
            self.stunned[kr[stun], kj[stun]] = True
            self.posture[kr[stun], kj[stun]] = POSTURE_PRONE  # knocked down (B420)
            out[np.flatnonzero(roll)[ko]] = True
        keeps = ~out & (self.aimed[rows, j] > 0)  # injured while aiming: Will (B364)
        if keeps.any():
            ar, aj = rows[keeps], j[keeps]
            margin, _ = self.ht_roll(aj, ar, of=t.will)
            self.aimed[ar[margin < 0], aj[margin < 0]] = 0

    def end_fights(self, rows: Array, r: int) -> None:
        """End the fights in which at most one side has anyone up; that side wins."""
        t = self.t
        up = self.cond[rows] == UP
        side_up = np.stack([up[:, m].any(axis=1) for m in t.members], axis=1)
        ending = side_up.sum(axis=1) <= 1
        if not ending.any():
            return
        er = rows[ending]
        won = np.where(side_up[ending].any(axis=1), side_up[ending].argmax(axis=1), -1)
        self.winner[er] = won
        self.rounds[er] = r
        self.live[er] = False
