"""The simulator's turns that are not an attack, vectorised: getting up, reloading,
closing in and aiming (the rules 2d-2g of :mod:`.sim_oracle`, which plays them one
fight at a time).

Sources: *GURPS Basic Set*, 4th edition: B364, "Change Posture" (from lying down to
standing takes two: prone, then kneeling, then standing), "Move" and "Aim"; B366,
"Ready"; B269-B270, the Shots column (:mod:`.shots`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .sim_oracle import STEP, UP
from .sim_tables import Array

if TYPE_CHECKING:
    from .simulate import _Batch

__all__ = ["close_or_aim", "stand_or_reload"]


def stand_or_reload(b: _Batch, rows: Array, a: Array, go: Array) -> Array:
    """Who of ``go`` still acts after this turn's Change Posture (one step toward
    standing, B364) or Ready (a turn of reloading a weapon with no shot left, B366,
    B269; a weapon reloaded in no fight does nothing more)."""
    t = b.t
    getting_up = go & (b.posture[rows, a] > 0)
    b.posture[rows[getting_up], a[getting_up]] -= 1
    b.aimed[rows[getting_up], a[getting_up]] = 0  # B364: a turn of anything but Aim ends it
    standing: Array = go & ~getting_up
    if not t.shots.any():
        return standing
    empty = standing & (t.shots[a] > 0) & (b.loaded[rows, a] == 0)
    if empty.any():
        er, ea = rows[empty], a[empty]
        can = t.reload[ea] > 0
        er, ea = er[can], ea[can]
        b.readying[er, ea] += 1
        done = b.readying[er, ea] >= t.reload[ea]
        dr, da = er[done], ea[done]
        b.loaded[dr, da] = np.where(t.one_at_a_time[da], 1, t.shots[da])
        b.readying[dr, da] = 0
    acting: Array = standing & ~empty
    return acting


def close_or_aim(b: _Batch, rows: Array, a: Array, j: Array) -> tuple[Array, Array]:
    """Which of the fighters ``a`` (each choosing ``j``) attack this turn, and at what
    distance: a melee fighter more than a step from its foe takes a Move of its Move
    toward it (B364, halved reeling, B419; the two's distance shrinks by as much, to 1
    yard), and one a step off steps in and attacks (B365); a ranged one
    with an Acc and no enemy up within a yard takes Aim (B364) until its
    ``aim_turns``, a new target starting a new Aim."""
    t = b.t
    if b.dist is None:  # every fighter within reach of every other: no Move, no Aim
        return np.ones(len(rows), dtype=bool), np.zeros(len(rows), dtype=np.int64)
    d = b.dist[rows, a, j].astype(np.int64)
    walk = ~t.ranged[a] & (d > STEP + 1)
    if walk.any():
        wr, wa, wj = rows[walk], a[walk], j[walk]
        reeling = 3 * b.hp[wr, wa] < t.hp[wa]  # B419: Move halved, rounded up
        move = np.where(reeling, -(-t.move[wa] // 2), t.move[wa])
        closer = np.maximum(1, d[walk] - move)
        b.dist[wr, wa, wj] = closer
        b.dist[wr, wj, wa] = closer
    step = ~t.ranged[a] & ~walk & (d > 1)  # B365: an Attack steps into reach first
    if step.any():
        b.dist[rows[step], a[step], j[step]] = 1
        b.dist[rows[step], j[step], a[step]] = 1
        d = np.where(step, 1, d)
    new = b.aim_at[rows, a] != j
    b.aimed[rows[new], a[new]] = 0
    b.aim_at[rows, a] = j
    aiming = ~walk & t.can_aim[a] & (b.aimed[rows, a] < t.aim_turns[a])
    if aiming.any():
        foes = (b.cond[rows] == UP) & (t.side[None, :] != t.side[a][:, None])
        near = (foes & (b.dist[rows, a, :] <= 1)).any(axis=1)
        aiming &= ~near
        b.aimed[rows[aiming], a[aiming]] += 1
    return ~walk & ~aiming, d
