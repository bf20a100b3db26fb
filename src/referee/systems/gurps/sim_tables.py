"""The simulator's tables: what :mod:`.simulate` cannot run as numpy, taken once per
encounter from the rule modules that ``gurps attack`` uses, so nothing is written twice.

- 3d6 against every effective skill: success, critical success and failure, the
  margin (:func:`.success.outcome`, :func:`.success.margin`; ``000``, "Success Rolls",
  "Critical Success and Failure", GURPS 4th edition) and an aimed attack's miss by 1
  (:func:`.melee.misses_by_one`, B399).
- Each attack's effective skill with and without All-Out Attack and at each shock
  (:func:`.melee.effective_attack`; B365, B419), and what a ranged attack adds: the
  range penalty at each distance (:func:`.situation.range_penalty`, B550), each turn
  of Aim (:func:`.situation.aim_bonus`, B364) and a low target
  (:meth:`.situation.Posture.as_target`, B551).
- The defense each combatant rolls in every state, and its level
  (:func:`.target.choose_defense`, :func:`.defense.defense_modifiers`,
  :func:`.defenses.settle`, what :func:`.defense.defenses_against` allows; B374-B377,
  B366, B419, B420, and each posture, B551).
- B398's random hit location (:data:`.locations.RANDOM_TABLE`).
- A critical hit's effect on the blow (B556; :func:`.exchange.critical_effect`,
  :func:`.criticals.head_blow`, :func:`.blows.on_head`).
- Every blow's injury, shock, major wound, crippled limb and knockdown modifier, per
  (damage, target, critical effect, location, damage total): :func:`.blows.blow`
  (B378-B379, B398-B400, B419-B421, B556).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ...odds import odds as dice_odds
from .blows import blow, on_head
from .criticals import CRITICAL_HEAD_BLOW, CRITICAL_HIT, HEAD, CriticalRoll, head_blow
from .damage import _dice_adds
from .defense import DEFENSES, DefenseOptions, defense_modifiers
from .defenses import settle
from .exchange import critical_effect
from .locations import RANDOM_TABLE, read_location
from .melee import AIMED, effective_attack, misses_by_one
from .sim_encounter import Aim, Encounter, Pick
from .sim_oracle import AGAINST, POSTURES, against, aims, can_defend, options_for, target_of
from .situation import Posture, aim_bonus, range_penalty
from .success import Outcome, margin, outcome
from .target import choose_defense

__all__ = ["AIMED_KEYS", "Array", "Tables"]

Array = npt.NDArray[Any]
AIMED_KEYS = {"head": HEAD, "torso_miss": AIMED}
NO_KNOCKDOWN = 99
"""The knockdown table's "no roll called"."""


class Tables:
    """Per-encounter constants as arrays (see the module docstring for their sources)."""

    lo, hi = -60, 80
    """The effective skills the 3d6 tables cover (a level outside reads as its end)."""
    max_shock = 8
    max_parried = 6
    no_knockdown = NO_KNOCKDOWN

    def __init__(self, enc: Encounter) -> None:
        fs = enc.fighters
        self.enc = enc
        self.c = c = len(fs)
        self.side = np.array([enc.side_index(f.side) for f in fs])
        self.members = [np.flatnonzero(self.side == s) for s in range(len(enc.sides))]
        self.hp = np.array([f.hp for f in fs], dtype=np.int64)
        self.ht = np.array([f.ht for f in fs], dtype=np.int64)
        self.speed = np.array([float(f.basic_speed) for f in fs])
        self.ranged = np.array([f.ranged for f in fs])
        self.against = np.array([against(f) for f in fs], dtype=np.int64)
        """Each attack's index in :data:`.sim_oracle.AGAINST`: melee, arrow, bullet."""
        self.lpt = np.array([f.lpt for f in fs])
        self.flee = np.array([f.tactics.flee == "reeling" for f in fs])
        self.aod = np.array([f.tactics.all_out_defense == "reeling" for f in fs])
        self.aoa = np.array([f.tactics.all_out_attack == "defenseless" for f in fs])
        self.retreat = np.array([f.tactics.retreat for f in fs])
        self.pick = np.array([list(Pick).index(f.tactics.target) for f in fs])
        by_danger = sorted(range(c), key=lambda j: (-fs[j].danger, j))
        self.danger_rank = np.array([by_danger.index(j) for j in range(c)], dtype=np.int64)
        self.first_rank = np.arange(c, dtype=np.int64)
        self._rolls()
        self.can_defend = np.array([[can_defend(f, a) for a in AGAINST] for f in fs])
        self.attack_eff = np.array([[[effective_attack(f.skill, options_for(f, bool(x), s))
                                      for s in range(self.max_shock + 1)] for x in (0, 1)]
                                    for f in fs], dtype=np.int64)  # fmt: skip
        self._ranged()
        self._defenses()
        self._locations()
        self._blows()

    def _ranged(self) -> None:
        fs = self.enc.fighters
        self.will = np.array([f.will for f in fs], dtype=np.int64)
        self.move = np.array([f.move for f in fs], dtype=np.int64)
        self.shots = np.array([0 if f.shots is None else f.shots.count for f in fs])
        self.reload = np.array([0 if f.shots is None else f.shots.reload for f in fs])
        self.one_at_a_time = np.array([f.shots is not None and f.shots.one_at_a_time
                                       for f in fs])  # fmt: skip
        self.can_aim = np.array([aims(f) for f in fs])
        self.aim_turns = np.array([f.tactics.aim_turns for f in fs], dtype=np.int64)
        self.aim_eff = np.array([[aim_bonus(k, f.acc or 0) if f.ranged else 0 for k in range(4)]
                                 for f in fs], dtype=np.int64)  # fmt: skip
        self.low = np.array([[sum(options_for(f, False, 0, target=p).modifiers)
                              for p in POSTURES] for f in fs], dtype=np.int64)  # fmt: skip
        self.dist0 = np.array([[max(f.distance, g.distance) for g in fs] for f in fs])
        self.far = int(self.dist0.max())
        """The farthest two fighters start; 0: every one within reach of every other."""
        self.range_pen = np.array([range_penalty(y) for y in range(self.far + 1)])

    def _rolls(self) -> None:
        skills = range(self.lo, self.hi + 1)
        shape = (len(skills), 19)
        self.success = np.zeros(shape, dtype=bool)
        self.crit_success = np.zeros(shape, dtype=bool)
        self.crit_fail = np.zeros(shape, dtype=bool)
        self.miss1 = np.zeros(shape, dtype=bool)
        self.margin = np.zeros(shape, dtype=np.int64)
        for e, eff in enumerate(skills):
            for total in range(3, 19):
                o = outcome(total, eff)
                self.success[e, total] = o.success
                self.crit_success[e, total] = o is Outcome.CRITICAL_SUCCESS
                self.crit_fail[e, total] = o is Outcome.CRITICAL_FAILURE
                self.miss1[e, total] = misses_by_one(total, eff)
                self.margin[e, total] = margin(total, eff)

    def _defenses(self) -> None:
        p, n, q = self.max_parried + 1, len(AGAINST), len(POSTURES)
        self.def_kind = np.full((self.c, n, 2, 2, 2, 2, p, q), -1, dtype=np.int64)
        self.def_level = np.zeros((self.c, n, 2, 2, 2, 2, p, q), dtype=np.int64)
        for j, f in enumerate(self.enc.fighters):
            for k, allowed in enumerate(AGAINST):  # B375-B377: melee, arrow, bullet
                if not can_defend(f, allowed):
                    continue
                parry = allowed.parry  # None: a missile cannot be parried (B376)
                for index in np.ndindex(2, 2, 2, 2, p, q):
                    stunned, reeling, retreat, aod, parried, posture = (int(x) for x in index)
                    if retreat and (not allowed.retreat or POSTURES[posture] is Posture.KNEELING):
                        continue  # B377, B551: no retreat from a missile, nor kneeling
                    target = target_of(f, 0 if reeling else f.hp, bool(stunned))
                    options = DefenseOptions(
                        retreat=bool(retreat), all_out=bool(aod), parried=parried,
                        posture=POSTURES[posture],
                    )  # fmt: skip
                    target, _, options = settle(allowed, target, "best", options)
                    chosen = choose_defense(target, "best", options, 0, parry)
                    assert chosen is not None
                    mods = defense_modifiers(chosen[0], options, 0, parry or 0)
                    at = (j, k, *index)
                    self.def_kind[at] = DEFENSES.index(chosen[0])
                    self.def_level[at] = chosen[1] + sum(m for _, m in mods)

    def _locations(self) -> None:
        fs = self.enc.fighters
        keys = list(dict.fromkeys(["torso", *RANDOM_TABLE.values()]))
        keys += [f.tactics.aim for f in fs if f.tactics.aim not in ("random", *keys)]
        self.locs = keys
        self.torso = 0
        self.random_loc = np.zeros(19, dtype=np.int64)
        for total, key in RANDOM_TABLE.items():
            self.random_loc[total] = keys.index(key)
        self.aim_random = np.array([f.tactics.aim == Aim.RANDOM.value for f in fs])
        self.aim_loc = np.array([0 if f.tactics.aim == "random" else keys.index(f.tactics.aim)
                                 for f in fs])  # fmt: skip
        self.aimed = np.array([f.tactics.aim in AIMED for f in fs])
        rows = [CRITICAL_HIT, CRITICAL_HEAD_BLOW]
        self.effects = list(
            dict.fromkeys(["normal", *(e.effect for t in rows for e in t.values())])
        )
        self.double_shock = self.effects.index("double_shock")
        self.crit_effect = np.zeros((self.c, 19, len(keys)), dtype=np.int64)
        for a, f in enumerate(fs):
            options = options_for(f, False, 0)
            for total in range(3, 19):
                crit = CriticalRoll("critical hit", (1, 1, total - 2), total, CRITICAL_HIT[total])
                if options.location is not None and read_location(options.location).key in HEAD:
                    crit = head_blow(crit)  # aimed at the head (B556; melee.attack)
                base = critical_effect(crit, options)
                for li, key in enumerate(keys):
                    effect = base
                    if crit.table == "critical hit" and on_head(key, f.damage.damage_type):
                        effect = head_blow(crit).entry.effect  # landed on the head (strike)
                    self.crit_effect[a, total, li] = self.effects.index(effect)

    def _blows(self) -> None:
        fs = self.enc.fighters
        counts = [_dice_adds(f.damage.expression)[0] for f in fs]
        self.dice = np.array(counts, dtype=np.int64)
        self.dice_cdf: dict[int, Array] = {}
        for count in set(counts):
            dist = sorted(dice_odds(f"{count}d6").distribution.items())
            cdf = np.cumsum([float(p) for _, p in dist])
            cdf[-1] = 1.0
            self.dice_cdf[count] = cdf
        keys: dict[Any, int] = {}
        self.pair = np.zeros((self.c, self.c), dtype=np.int64)
        for a, f in enumerate(fs):
            for j, g in enumerate(fs):
                key = (f.damage, g.hp, g.dr, g.dr_at, g.hpt, g.lpt)
                self.pair[a, j] = keys.setdefault(key, len(keys))
        width = 5 * max(counts) + 1
        shape = (len(keys), len(self.effects), len(self.locs), width)
        self.injury = np.zeros(shape, dtype=np.int64)
        self.shock = np.zeros(shape, dtype=np.int64)
        self.major = np.zeros(shape, dtype=bool)
        self.cripples = np.full(shape, -1, dtype=np.int64)
        self.knockdown = np.full(shape, NO_KNOCKDOWN, dtype=np.int64)
        self.limbs: list[str] = []
        done: set[int] = set()
        locations = [read_location(k) for k in self.locs]
        for a, f in enumerate(fs):
            for j, g in enumerate(fs):
                p = int(self.pair[a, j])
                if p in done or self.side[a] == self.side[j]:
                    continue
                done.add(p)
                count, adds = _dice_adds(f.damage.expression)
                target = target_of(g, g.hp, False)
                for ei, effect in enumerate(self.effects):
                    for li, loc in enumerate(locations):
                        for k in range(5 * count + 1):
                            b = blow(count + k + adds, f.damage, target, loc, effect)
                            at = (p, ei, li, k)
                            self.injury[at] = b.injury
                            self.shock[at] = b.wound.shock
                            self.major[at] = b.wound.major
                            if b.wound.knockdown is not None:
                                self.knockdown[at] = b.wound.knockdown
                            if b.wound.crippled:
                                if b.wound.crippled not in self.limbs:
                                    self.limbs.append(b.wound.crippled)
                                self.cripples[at] = self.limbs.index(b.wound.crippled)

    def effect_index(self, effect: str) -> int:
        """The index of a critical effect's name in :attr:`effects`."""
        return self.effects.index(effect)
