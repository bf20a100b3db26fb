"""What ``gurps attack`` rolls once its options are read (:mod:`.gurps_combat`): a lone
attack (one, or two for All-Out Attack (Double) or a Dual-Weapon Attack), or the whole
exchange against a target, each with its exact odds (``gurps odds attack``).

Rules: :mod:`referee.systems.gurps.melee`, :mod:`referee.systems.gurps.exchange` and
the modules they name (B365, B373, B417 for the attacks that make two or several).
"""

from __future__ import annotations

from dataclasses import replace

from ..fmt import fraction, percent
from ..render.combat import attack_json, exchange_json, exchange_odds_json
from ..render.gurps import check_json, contest_json, skill_odds_json
from ..rng import RandomSource
from ..systems.gurps.allout import feint_penalty
from ..systems.gurps.damage import DamageSpec
from ..systems.gurps.defense import Flank, situation_defense
from ..systems.gurps.exchange import Target, exchanges
from ..systems.gurps.exchange_odds import double_odds, exchange_odds
from ..systems.gurps.melee import AttackOptions, DefenseOptions, attack, effective_attack
from ..systems.gurps.success import require_rollable, skill_odds
from .gurps_target import with_pain, with_pain_odds, with_tolerance
from .registry import Twin
from .result import Reply

__all__ = ["exchange_twin", "lone_twin"]


def _pair(options: AttackOptions) -> tuple[AttackOptions, AttackOptions] | None:
    """The two attacks' options of All-Out Attack (Double), a Dual-Weapon Attack (the
    off hand's −4 on the second, B417) or a Rapid Strike (−6 each, B370); None for one
    attack."""
    if options.dual_weapon:
        return replace(options, off_hand=False), options
    if options.double or options.rapid:
        return options, options
    return None


_PAIRS = {
    "dual": "Dual-Weapon Attack, B417",
    "rapid": "Rapid Strike, B370",
    "double": "All-Out Attack, Double",
}


def lone_twin(level: int, options: AttackOptions, name: str | None) -> Twin:
    """An attack with no target: its roll (two for Double or Dual-Weapon, a feint's
    contest first) and its odds.

    Raises:
        RuleError: a Deceptive Attack below 10 (B369), before any die.
    """
    pair = _pair(options)
    eff = effective_attack(level, pair[0] if pair else options)
    for o in pair or (options,):  # the roll refuses below 3 (000; B344): so do the odds
        require_rollable(effective_attack(level, o))

    def go(rng: RandomSource) -> Reply:
        feinted = None  # All-Out Attack (Feint): its Quick Contest first (B365)
        if options.feint is not None:
            from ..systems.gurps.contest import quick_contest

            feinted = quick_contest(level, options.feint, resistance=True, rng=rng,
                                    names=("the feint", "the foe"))  # fmt: skip
        rolls = [attack(level, label=name, options=o, rng=rng) for o in (pair or (options,))]
        data, text = attack_json(rolls[0]), "; then ".join(r.text for r in rolls)
        if pair:
            data["second"] = attack_json(rolls[1])
        if feinted is not None:
            data["feint"] = contest_json(feinted)
            off = feint_penalty(feinted)  # B365: margin of success, or of victory
            text = f"feint: {feinted.text} (the foe's defense -{off}, B365); {text}"
        return Reply({**data, "text": text}, text)

    def attack_odds() -> Reply:
        o = skill_odds(eff)
        text = (
            f"{name or 'Attack'} {eff}: hits {percent(o.success)}, critical hit "
            f"{percent(o.critical_success)}, critical miss {percent(o.critical_failure)}"
        )
        if pair and pair[1] != pair[0]:
            then = effective_attack(level, pair[1])
            text += f"; the off hand's {then}: hits {percent(skill_odds(then).success)} (B417)"
        data = {"system": "gurps", "kind": "odds", "label": name, "effective_skill": eff,
                "odds": skill_odds_json(o), "text": text}  # fmt: skip
        return Reply(data, text)

    return go, attack_odds


def exchange_twin(
    level: int,
    spec: DamageSpec,
    target: Target,
    options: AttackOptions,
    defense: str,
    defense_options: DefenseOptions,
    name: str | None,
    *,
    knockdown_ht: int | None = None,
) -> Twin:
    """The whole exchange against ``target`` (two for Double or Dual-Weapon) and its
    exact odds, with the target's pain threshold and Injury Tolerance named.

    Raises:
        RuleError: anything :func:`.exchange_odds.exchange_odds` refuses, before any die.
    """
    who = name or "Attack"
    named = situation_defense(defense_options)  # B390, B420, B551
    if defense_options.flank is Flank.BACK:
        named.append(("from behind: no defense (B391)", 0))
    situated = [[n, m] for n, m in named]
    pair = _pair(options)
    first = pair[0] if pair else options
    # checks the choice; computed once, for the odds and the roll alike (cached)
    exchange_odds(level, spec, target, first, defense, defense_options, attacker=who)

    def exchange_go(rng: RandomSource) -> Reply:
        both = exchanges(level, spec, target, attacker=who, options=options, defense=defense,
                         defense_options=defense_options, rng=rng,
                         knockdown_ht=knockdown_ht)  # fmt: skip
        data = {**exchange_json(both[0]), "label": name, "defense_modifiers": situated}
        if spec.half:  # 1/2D (B378): said, as the hit's text says it
            data["half_damage"] = True
        reply = Reply(data, both[0].text)
        if len(both) == 2:  # All-Out Attack (Double), a Dual-Weapon Attack, a Rapid Strike
            text = f"first: {both[0].text}\nsecond: {both[1].text}"
            second = exchange_json(both[1])
            knocked = both[1].knocked  # B420: the first's knockdown roll, before the second
            if knocked is not None:
                text = text.replace("\nsecond: ", f"\nthen: {knocked.text}\nsecond: ", 1)
                second["knockdown"] = {**check_json(knocked.roll), "state": str(knocked.state)}
            reply = Reply({**data, "second": second, "text": text}, text)
        if defense_options.flank is Flank.BACK:  # B391: said, as no defense roll says it
            text = f"{reply.text} [from behind: {target.name} has no active defense (B391)]"
            reply = Reply({**reply.data, "text": text}, text)
        return with_tolerance(with_pain(reply, target), target)

    def steps_odds() -> Reply:
        o = exchange_odds(level, spec, target, first, defense, defense_options, attacker=who)
        data, text = {**exchange_odds_json(o), "label": name}, o.text
        data["defense_modifiers"] = situated
        if spec.half:  # 1/2D (B378)
            data["half_damage"] = True
            text += "\n  at 1/2D range: basic damage halved (B378)"
        if situated:  # the target's situation, named (B390, B420, B551)
            text += "\n  the defense: " + ", ".join(f"{n} {m:+d}" if m else n
                                                    for n, m in named)  # fmt: skip
        if pair:
            either, both = double_odds(o, level, spec, target, first, defense, defense_options,
                                       then=pair[1], knockdown_ht=knockdown_ht)  # fmt: skip
            what = _PAIRS["dual" if options.dual_weapon else "rapid" if options.rapid else "double"]
            text += f"\n  two attacks ({what}): either injures {percent(either)}, "
            text += f"both {percent(both)}"
            data = {**data, "double": {"either": fraction(either), "both": fraction(both)}}
        reply = with_pain_odds(Reply({**data, "text": text}, text), target, level, spec, first,
                               defense, defense_options)  # fmt: skip
        return with_tolerance(reply, target)

    return exchange_go, steps_odds
