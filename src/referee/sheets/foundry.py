"""Foundry VTT actor exports of the ``swnr`` system (Stars Without Number: Revised):
the JSON file Foundry's "Export Data" writes for a character.

An export holds the actor's *stored* data only (Foundry's ``toCompendium``, not the
values its sheet derives at load time), under ``system`` (Foundry 10 and later) or
``data`` (Foundry 9 and earlier; both layouts are read, ``system`` first). Fields
read, and where the system defines them:

* ``name``; ``type`` (``character``; an ``npc`` has no attributes in any version);
  ``_stats.systemId`` (Foundry 10+) or ``flags.exportSource.system`` (Foundry 9),
  which must be ``swnr`` when present.
* ``system.level.value``: the character level (1-20).
* ``system.stats.<str|dex|con|int|wis|cha>``: ``base``, ``boost`` and ``temp``
  (``temp`` since swnr 1.0; absent before). No score is stored: the sheet's
  ``total`` is computed at load as ``base + boost + temp`` (``calculateStats`` in
  the 1.x ``src/module/utils.ts``, ``prepareDerivedData`` in 2.x), and so is it
  here; a stored ``total`` or ``mod`` is ignored. The modifier is computed from the
  score; Foundry adds the stat's ``bonus`` (and, in 2.x, ``modModifier``) to it,
  which a :class:`~.model.Trait` cannot carry, so a non-zero one becomes a note.
* ``system.ab``: the base attack bonus, as typed on the sheet.
* ``system.health.max``: hit points (``health.value``, the current hit points,
  only makes a note when it is lower).
* ``system.baseAc`` and the ``armor`` items: AC is not stored either; it is
  computed as swnr does (1.0.4 and later, ``prepareDerivedData`` of the character):
  the best ``system.ac`` of the armor with ``system.use`` true and
  ``system.location`` ``"readied"`` (never below ``baseAc``), plus each other such
  armor with ``system.shield`` true adding its ``system.shieldACBonus`` (1 when the
  field is absent, as files before 1.0.4 have no such field and gave a shield +1),
  plus the Dex modifier with its ``bonus``.
* ``skill`` items: ``name`` and ``system.rank`` (-1 untrained, 0-4). Untrained
  skills are left out: a skill not on a sheet is untrained. ``defaultStat`` (a
  stat key) is the skill's usual attribute; ``"ask"`` or none leaves it to the
  roll. ``pool`` (the dice, ``2d6`` or ``3d6kh2``...) is not read.
* ``weapon`` items: ``name``; ``system.damage`` (a dice string); ``system.stat``
  and ``system.secondStat`` (a stat key, ``"none"``/null for no second stat,
  ``"ask"`` in 2.x to ask at each roll; before 0.4.0 ``stat`` held both, as
  ``"str/dex"``); ``system.skill``: the ``_id`` of one of the actor's own skill
  items (``""`` none chosen, ``"ask"`` in 2.x), read as that skill's name;
  ``system.shock.dmg`` (a number up to 1.x, a string such as ``"2"`` in 2.x; 0
  means no Shock) and ``system.shock.ac``.
* ``effects`` on the actor and its items: not applied (Foundry applies them on
  top of the stored values); an enabled one with changes makes a note.

Learned from the system's source: ``wintersleepAI/swnr`` (2.x, Foundry 12-13):
``module/data/actors/actor-character.mjs`` and ``base-actor.mjs``, ``module/data/
items/item-skill.mjs``, ``item-weapon.mjs``, ``item-armor.mjs``, ``module/data/shared.mjs``,
``module/helpers/utils.mjs`` (``calcMod``), ``module/helpers/config.mjs``
(``maxSkillRank`` 4), and pack files such as
``src/packs/swn-items/Shoot_x01228sBJbm3xA3c.yml``; ``wintersleepAI/foundry-swnr``
(0.5-1.1, Foundry 0.8-11): ``src/template.yml`` (its history too: ``temp`` added
in 1.0), ``src/system.yml`` (which Foundry versions each release supports),
``src/module/actors/character.ts``, ``src/module/utils.ts``,
``src/module/items/weapon.ts``, ``src/templates/items/weapon-sheet.html`` (the
skill select stores the skill item's id); ``Spice-King/foundry-swnr`` (the
original, Foundry 0.7-9): ``src/template.yml``, ``src/migrations/weapons.ts``
(the ``"str/dex"`` split), ``src/module/item-types.d.ts``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import RefereeError, SheetError
from ..parser import parse
from ..systems.swn.attributes import attribute_modifier
from . import foundry_fields as fields
from .foundry_fields import WHO, at, effect_notes, kind_of, layout, number, show, whole
from .model import Attack, Kind, Sheet, Trait

__all__ = ["STATS", "is_foundry_swnr", "read_foundry_swnr"]

STATS = {"str": "Str", "dex": "Dex", "con": "Con", "int": "Int", "wis": "Wis", "cha": "Cha"}
"""swnr's stat keys, and the attribute names referee gives them."""

_NO_STAT = {"", "none", "ask"}
_NO_SKILL = {"", "ask", "none"}
_Skills = tuple[dict[str, str], dict[str, str]]
"""An actor's skills by item id, and by casefolded name (the first of a name)."""


def is_foundry_swnr(doc: object) -> bool:
    """Whether parsed JSON looks like an swnr actor export: a list of ``items`` and a
    ``system`` (or, before Foundry 10, ``data``) object holding ``stats``.

    >>> is_foundry_swnr({"name": "Vex", "type": "character", "items": [],
    ...                  "system": {"stats": {}}})
    True
    >>> is_foundry_swnr({"version": 5, "profile": {}}), is_foundry_swnr({"items": []})
    (False, False)
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
        return False
    data = layout(doc)[1]
    if not isinstance(data, dict) or "stats" not in data:
        return False
    return doc.get("type", "character") in ("character", "npc")


def read_foundry_swnr(doc: dict[str, Any]) -> Sheet:
    """An swnr actor export (parsed JSON) as a :class:`~.model.Sheet`.

    >>> sheet = read_foundry_swnr({
    ...     "name": "Vex", "type": "character",
    ...     "system": {
    ...         "level": {"value": 3}, "ab": 1, "baseAc": 10,
    ...         "health": {"value": 14, "max": 14},
    ...         "stats": {k: {"base": 10, "boost": 0, "bonus": 0}
    ...                   for k in ("str", "dex", "con", "int", "wis", "cha")},
    ...     },
    ...     "items": [
    ...         {"_id": "s1", "name": "Shoot", "type": "skill", "system": {"rank": 1}},
    ...         {"_id": "w1", "name": "Laser Rifle", "type": "weapon",
    ...          "system": {"damage": "1d10", "stat": "dex", "secondStat": "none",
    ...                     "skill": "s1", "shock": {"dmg": 0, "ac": 15}}},
    ...     ],
    ... })
    >>> sheet.level, sheet.attack_bonus, sheet.ac, sheet.hp
    (3, 1, 10, 14)
    >>> [(t.name, t.level) for t in sheet.traits][-2:]
    [('Cha', 10), ('Shoot', 1)]
    >>> rifle = sheet.attacks[0]
    >>> rifle.name, rifle.damage, rifle.skill, rifle.attributes, rifle.shock, rifle.attack_bonus
    ('Laser Rifle', '1d10', 'shoot', ('dex',), None, 0)

    Raises:
        SheetError: the export is not an swnr character, or a field the sheet needs
            is missing or holds a value a character cannot have (a score outside
            3-18, a skill rank outside -1..4, a weapon without damage, over
            :data:`~.foundry_fields.MAX_WEAPONS` weapons); the message names the field.
    """
    if not isinstance(doc, dict):
        raise SheetError(f"{WHO} export is not a JSON object")
    root, data = layout(doc)
    _check_system(doc)
    kind = doc.get("type", "character")
    if kind == "npc" and not (isinstance(data, dict) and "stats" in data):
        raise SheetError(
            "this Foundry swnr actor is an NPC, which has no attributes; export a character"
        )
    if kind not in ("character", "npc"):
        raise SheetError(f"this Foundry actor is a {show(kind)}, not a character")
    if not isinstance(data, dict):
        raise SheetError(f"{WHO} has no '{root}' object holding its data")
    name = doc.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SheetError(f"{WHO} has no name")
    items = doc.get("items")
    if not isinstance(items, list):
        raise SheetError(f"{WHO}'s item list ('items') is {kind_of(items)}, not a list")
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise SheetError(f"{WHO}'s item {i} is {kind_of(item)}, not an object")
    weapons = sum(item.get("type") == "weapon" for item in items)
    if weapons > fields.MAX_WEAPONS:
        raise SheetError(
            f"{WHO} has {weapons:,} weapon items; a character sheet has at most "
            f"{fields.MAX_WEAPONS}"
        )

    notes: list[str] = []
    level = whole(at(data, root, "level", "value"), "level", 1, 20, required=True)
    assert level is not None
    scores, dex_bonus = _stats(data, root, notes)
    traits = [Trait(STATS[k], None, scores[k], Kind.ATTRIBUTE) for k in STATS]
    skills: dict[str, str] = {}  # skill item _id -> name, for the weapons
    for i, item in _typed(items, "skill"):
        skill, rank = _skill(item, i)
        if isinstance(item.get("_id"), str):
            skills[item["_id"]] = skill
        if rank >= 0:
            where, held = layout(item)
            usual = at(held, where, "defaultStat").value
            stat = usual.lower() if isinstance(usual, str) and usual.lower() in STATS else None
            traits.append(Trait(skill, None, rank, Kind.SKILL, attribute=stat))
    by_name = {s.casefold(): s for s in reversed(skills.values())}  # the first of a name
    attacks: list[Attack] = []
    for i, item in _typed(items, "weapon"):
        attack = _weapon(item, i, (skills, by_name), notes)
        if attack is not None:
            attacks.append(attack)
    attack_bonus = whole(at(data, root, "ab"), "attack bonus", -10, 30)
    ac = _ac(data, root, items, attribute_modifier(scores["dex"], "Dex") + dex_bonus)
    hp = _hp(data, root, notes)
    effect_notes(doc, items, notes)
    return Sheet(
        system="swn",
        name=name.strip(),
        source="Foundry swnr actor",
        traits=tuple(traits),
        attacks=tuple(attacks),
        level=level,
        attack_bonus=attack_bonus,
        ac=ac,
        hp=hp,
        notes=tuple(notes),
    )


def _check_system(doc: dict[str, Any]) -> None:
    """Refuse an export another Foundry system wrote (its ``_stats.systemId`` or, before
    Foundry 10, ``flags.exportSource.system``)."""
    for field in (
        at(doc.get("_stats"), "_stats", "systemId"),
        at(doc.get("flags"), "flags", "exportSource", "system"),
    ):
        if field.present and isinstance(field.value, str) and field.value not in ("", "swnr"):
            raise SheetError(
                f"this Foundry actor was exported from the {field.value!r} system, "
                "not swnr (Stars Without Number: Revised)"
            )


def _stats(data: dict[str, Any], root: str, notes: list[str]) -> tuple[dict[str, int], int]:
    """The six scores (``base + boost + temp``), and what Foundry adds to the Dex
    modifier (its ``bonus`` and ``modModifier``)."""
    stats = data.get("stats")
    if not isinstance(stats, dict):
        raise SheetError(f"{WHO} has no stats ({root}.stats)")
    scores: dict[str, int] = {}
    dex_bonus = 0
    for key, label in STATS.items():
        stat = stats.get(key)
        if not isinstance(stat, dict) or stat.get("base") is None:
            raise SheetError(f"{WHO}'s stat {key!r} has no score ({root}.stats.{key}.base)")
        parts = {}
        for part in ("base", "boost", "temp", "bonus", "modModifier"):
            value = whole(at(stat, f"{root}.stats.{key}", part), f"stat {key!r} {part}", -99, 99)
            parts[part] = value or 0
        score = parts["base"] + parts["boost"] + parts["temp"]
        if not 3 <= score <= 18:
            raise SheetError(
                f"{WHO}'s {label} score is {score} ({root}.stats.{key}: base {parts['base']}, "
                f"boost {parts['boost']}, temp {parts['temp']}); an SWN attribute score is 3 to 18"
            )
        scores[key] = score
        extra = parts["bonus"] + parts["modModifier"]
        if extra:
            notes.append(
                f"Foundry adds {extra:+d} to the {label} modifier (the stat's bonus); "
                "referee's rolls use the modifier of the score alone"
            )
        if key == "dex":
            dex_bonus = extra
    return scores, dex_bonus


def _typed(items: list[dict[str, Any]], kind: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The items of one ``type``, with their 1-based place in the list."""
    for i, item in enumerate(items, 1):
        if item.get("type") == kind:
            yield i, item


def _item_name(item: dict[str, Any], kind: str, i: int) -> str:
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SheetError(f"{WHO}'s {kind} item {i} has no name")
    return name.strip()


def _skill(item: dict[str, Any], i: int) -> tuple[str, int]:
    """A skill item's name and rank (-1 untrained, 0-4)."""
    name = _item_name(item, "skill", i)
    root, data = layout(item)
    rank = whole(
        at(data, root, "rank"), "rank", -1, 4, required=True, who=f"{WHO}'s skill {name!r}"
    )
    assert rank is not None
    return name, rank


def _weapon(item: dict[str, Any], i: int, skills: _Skills, notes: list[str]) -> Attack | None:
    """A weapon item as an :class:`~.model.Attack`, or None (with a note) when its
    damage is not dice referee can roll."""
    name = _item_name(item, "weapon", i)
    who = f"{WHO}'s weapon {name!r}"
    root, data = layout(item)
    if not isinstance(data, dict):
        raise SheetError(f"{who} has no '{root}' object holding its data")
    damage = data.get("damage")
    if not isinstance(damage, str) or not damage.strip():
        raise SheetError(f"{who} has no damage ({root}.damage)")
    damage = damage.strip()
    if len(damage) > fields.MAX_DAMAGE:
        notes.append(
            f"left out the weapon {name!r}: its damage {show(damage)} is over {fields.MAX_DAMAGE} "
            "characters, not dice referee rolls"
        )
        return None
    try:
        parse(damage)
    except RefereeError:
        notes.append(
            f"left out the weapon {name!r}: its damage {damage!r} is not dice referee rolls"
        )
        return None
    return Attack(
        name=name,
        usage=None,
        damage=damage,
        skill=_weapon_skill(data, root, name, skills, notes),
        attributes=_weapon_stats(data, root, who),
        shock=_shock(data, root, who, name, notes),
        attack_bonus=whole(at(data, root, "ab"), "attack bonus", -10, 30, who=who) or 0,
    )


def _weapon_stats(data: dict[str, Any], root: str, who: str) -> tuple[str, ...]:
    """The stats a weapon may use (``("str", "dex")``); () when it asks at each roll."""
    stat, second = data.get("stat"), data.get("secondStat")
    for field, value in (("stat", stat), ("secondStat", second)):
        if value is not None and not isinstance(value, str):
            raise SheetError(f"{who}'s {field} ({root}.{field}) is {show(value)}, not a stat")
    first = (stat or "").strip().casefold()
    if first == "ask":
        return ()
    picks = first.split("/") + [(second or "").strip().casefold()]  # "str/dex" before 0.4.0
    chosen: list[str] = []
    for pick in picks:
        if pick in _NO_STAT:
            continue
        if pick not in STATS:
            raise SheetError(
                f"{who} uses the stat {pick!r} ({root}.stat/secondStat); "
                f"a stat is one of {', '.join(STATS)}"
            )
        if pick not in chosen:
            chosen.append(pick)
    return tuple(chosen)


def _weapon_skill(
    data: dict[str, Any], root: str, name: str, skills: _Skills, notes: list[str]
) -> str | None:
    """The name (lower case) of the skill item a weapon's ``skill`` holds the id (or,
    failing that, the name) of: looked up, not searched, so that reading stays linear."""
    ref = data.get("skill")
    if not isinstance(ref, str) or ref.strip().casefold() in _NO_SKILL:
        return None
    by_id, by_name = skills
    if ref in by_id:
        return by_id[ref].casefold()
    if ref.strip().casefold() in by_name:
        return by_name[ref.strip().casefold()].casefold()
    notes.append(
        f"the weapon {name!r} names a skill ({root}.skill {show(ref)}) the actor does not "
        "have; no skill is set for it"
    )
    return None


def _shock(data: dict[str, Any], root: str, who: str, name: str, notes: list[str]) -> str | None:
    """A weapon's Shock as ``AMOUNT/AC``; None without Shock (an amount of 0)."""
    shock = data.get("shock")
    if shock is None:
        return None
    if not isinstance(shock, dict):
        raise SheetError(f"{who}'s shock ({root}.shock) is {kind_of(shock)}, not an object")
    dmg = shock.get("dmg")
    if dmg is None or (isinstance(dmg, str) and not dmg.strip()):
        return None
    amount = number(dmg)
    if amount is None:
        if isinstance(dmg, str):
            notes.append(
                f"left out the Shock of {name!r}: {dmg!r} is not a fixed amount referee uses"
            )
            return None
        raise SheetError(f"{who}'s shock damage ({root}.shock.dmg) is {show(dmg)}, not a number")
    if not 0 <= amount <= 99:
        raise SheetError(f"{who}'s shock damage ({root}.shock.dmg) is {amount}; it must be 0 to 99")
    if amount == 0:
        return None
    ac = whole(at(shock, f"{root}.shock", "ac"), "shock AC", 0, 40, required=True, who=who)
    return f"{amount}/{ac}"


def _ac(data: dict[str, Any], root: str, items: list[dict[str, Any]], dex_mod: int) -> int | None:
    """AC as swnr computes it: the best readied armor in use (not below ``baseAc``),
    each other readied shield's bonus, and the Dex modifier. None without ``baseAc``."""
    base = whole(at(data, root, "baseAc"), "base AC", 0, 40)
    if base is None:
        return None
    worn = []
    for _, item in _typed(items, "armor"):
        iroot, idata = layout(item)
        if (
            isinstance(idata, dict)
            and idata.get("use") is True
            and idata.get("location") == "readied"
        ):
            worn.append((item, iroot, idata))
    best, armor = base, None  # the armor worn: its AC counts, not its shield bonus
    for item, iroot, idata in worn:
        who = f"{WHO}'s armor {show(item.get('name'))}"
        ac = whole(at(idata, iroot, "ac"), "AC", 0, 40, required=True, who=who)
        assert ac is not None
        if ac > best:
            best, armor = ac, item
    total = best
    for item, iroot, idata in worn:
        if idata.get("shield") is not True or item is armor:
            continue
        if "shieldACBonus" not in idata:
            total += 1  # before 1.0.4: a shield gives +1
            continue
        who = f"{WHO}'s shield {show(item.get('name'))}"
        total += whole(at(idata, iroot, "shieldACBonus"), "AC bonus", 0, 10, who=who) or 0
    return total + dex_mod


def _hp(data: dict[str, Any], root: str, notes: list[str]) -> int | None:
    """Maximum hit points; a note when the current ones are lower."""
    hp = whole(at(data, root, "health", "max"), "maximum hit points", 0, 1000)
    now = whole(at(data, root, "health", "value"), "current hit points", -1000, 1000)
    if hp is not None and now is not None and now < hp:
        notes.append(f"the Foundry sheet shows {now} of {hp} hit points now; referee uses {hp}")
    return hp
