"""referee's own TOML sheets, one shape per system (docs/sheets.md documents each).

* ``system = "gurps"``: for those without GCS: ``[attributes]`` (``ST = 10``,
  ``Per = 12``...), ``[skills]``, ``[techniques]`` and ``[spells]`` with their
  levels, ``swing``/``thrust``/``dodge``, and ``[[attacks]]`` (``name``,
  ``usage``, ``level``, ``damage`` such as ``"2d+1 cut"``, ``parry``, ``block``),
  and for the combat rules ``hp``, ``fp``, ``basic_speed`` (each also under
  ``[attributes]``), ``dr`` (a number, or a ``[dr]`` table by hit location), and
  ``advantages``/``disadvantages`` (names: High or Low Pain Threshold, Injury
  Tolerance (Unliving), ...; :mod:`.advantages`). A GURPS sheet's keys are read in
  any case, a space as an underscore (``HP``, ``Hp``, ``Basic Speed``).
* ``system = "swn"``: ``level``, ``[attributes]`` (scores 3-18), ``[skills]``
  (levels 0-4, or ``{ level = 1, attribute = "dex" }`` to name the skill's usual
  attribute; a skill not listed is untrained), ``[combat]`` (``attack_bonus``,
  ``ac``, ``hp``) and ``[[weapons]]`` (``name``, ``damage``, ``skill``,
  ``attribute`` as a name or a list, ``shock`` as ``"2/15"``).
* ``system = "fudge"``: ``ladder`` (a built-in ladder) and ``[traits]`` with
  ladder levels (``"Ranged Combat" = "Good"``).

Only these keys are read, each checked; an unknown key is refused (a typo would
otherwise be silently ignored).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..errors import RefereeError, SheetError
from .advantages import CombatTraits, combat_traits, folded
from .formats import load_toml
from .model import Attack, Kind, Sheet, Trait

__all__ = ["SYSTEMS", "read_toml"]

SYSTEMS = ("gurps", "swn", "fudge")
"""The systems a TOML sheet may name."""

_SPEC = re.compile(r"^(.*?)\s*\(([^()]*)\)\s*$")
_SHOCK = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
SWN_ATTRIBUTES = {
    "str": "Str",
    "dex": "Dex",
    "con": "Con",
    "int": "Int",
    "wis": "Wis",
    "cha": "Cha",
}


class _Reader:
    """Checks one parsed TOML sheet's values, naming the key and its line on error."""

    def __init__(self, text: str, doc: dict[str, Any]) -> None:
        self.text = text
        self.doc = doc

    def fail(self, key: str, message: str) -> SheetError:
        last = [w for w in re.split(r"[\s.:\[\]]+", key) if w]
        line = _line_of(self.text, last[-1].strip("\"'")) if last else None
        where = f" (line {line})" if line else ""
        return SheetError(f"{key}: {message}{where}", line)

    def keys(self, table: Mapping[str, Any], allowed: set[str], where: str) -> None:
        for key in table:
            if key not in allowed:
                known = ", ".join(sorted(allowed))
                raise self.fail(f"{where}{key}", f"unknown key (a sheet has: {known})")

    def table(self, key: str, where: Mapping[str, Any] | None = None) -> dict[str, Any]:
        value = (self.doc if where is None else where).get(key, {})
        if not isinstance(value, dict):
            raise self.fail(key, "should be a table")
        return value

    def integer(self, key: str, value: Any, lo: int = -1000, hi: int = 1000) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(key, f"should be a whole number, not {value!r}")
        if not lo <= value <= hi:
            raise self.fail(key, f"{value} is outside {lo} to {hi}")
        return value

    def string(self, key: str, value: Any, longest: int = 200) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"should be some text, not {value!r}")
        if len(value) > longest:
            raise self.fail(key, f"is over {longest} characters")
        return value.strip()

    def optional(self, key: str, table: Mapping[str, Any]) -> str | None:
        return None if key not in table else self.string(key, table[key])

    def list_of_tables(self, key: str) -> list[dict[str, Any]]:
        value = self.doc.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(key, f"should be tables: [[{key}]]")
        return value


def _line_of(text: str, key: str) -> int | None:
    """The first line that mentions ``key``, to point an error at."""
    if not key:
        return None
    found = re.search(rf"(?<!\w){re.escape(key)}(?!\w)", text)
    return None if found is None else text.count("\n", 0, found.start()) + 1


def _named(name: str) -> tuple[str, str | None]:
    """``Fast-Draw (Knife)`` as name and specialization."""
    found = _SPEC.match(name)
    if found and found.group(1):
        return found.group(1).strip(), found.group(2).strip() or None
    return name.strip(), None


_GURPS_KEYS = {"system", "name", "attributes", "skills", "techniques", "spells", "attacks"} | {
    "swing", "thrust", "dodge", "dr", "advantages", "disadvantages", *("hp", "fp", "basic_speed")
}  # fmt: skip
"""A GURPS sheet's top-level keys, as :func:`_key` writes them."""
_POOLS = {"hp": "hp", "hit_points": "hp", "fp": "fp", "fatigue_points": "fp",
          "basic_speed": "basic_speed"}  # fmt: skip
"""The values the combat rules read that a sheet may also write under ``[attributes]``."""


def _key(key: str) -> str:
    """A key as read: any case, spaces as underscores (``Basic Speed``: ``basic_speed``;
    ``Hit Points``: ``hp``)."""
    canon = folded(key).replace(" ", "_")
    return _POOLS.get(canon, canon)


def _gurps(r: _Reader, name: str) -> Sheet:
    doc: dict[str, Any] = {}
    said: dict[str, str] = {}  # each key as read, as the sheet writes it
    for key, value in r.doc.items():
        canon = _key(key)
        if canon not in _GURPS_KEYS:
            known = ", ".join(sorted(_GURPS_KEYS))
            raise r.fail(key, f"unknown key (a sheet has: {known})")
        if canon in doc:
            raise r.fail(key, f"is given twice (as {said[canon]!r} too)")
        doc[canon], said[canon] = value, key
    traits: list[Trait] = []
    for key, kind in (
        ("attributes", Kind.ATTRIBUTE),
        ("skills", Kind.SKILL),
        ("techniques", Kind.TECHNIQUE),
        ("spells", Kind.SPELL),
    ):
        for trait, level in r.table(key, doc).items():
            if kind is Kind.ATTRIBUTE and _key(trait) in _POOLS:  # [attributes] HP = 14
                canon = _POOLS[_key(trait)]
                if canon in doc:
                    raise r.fail(
                        f"[attributes] {trait}", f"is given twice (as {said[canon]!r} too)"
                    )
                doc[canon], said[canon] = level, f"[attributes] {trait}"
                continue
            base, spec = _named(r.string(f"[{key}] {trait}", trait, 100))
            traits.append(Trait(base, spec, r.integer(f"[{key}] {trait}", level), kind))
    if "dodge" in doc:
        traits.append(Trait("Dodge", None, r.integer(said["dodge"], doc["dodge"]), Kind.DEFENSE))
    combat = _combat(r, doc, said)
    attacks = []
    for i, a in enumerate(r.list_of_tables(said.get("attacks", "attacks")), 1):
        where = f"[[attacks]] {i}: "
        r.keys(a, {"name", "usage", "level", "damage", "parry", "block", "acc", "bulk",
                         "shots"}, where)  # fmt: skip
        if "name" not in a or "damage" not in a:
            raise r.fail("attacks", f"attack {i} needs a name and a damage")
        attacks.append(
            Attack(
                name=r.string(f"{where}name", a["name"], 100),
                usage=r.optional("usage", a),
                damage=r.string(f"{where}damage", a["damage"], 100),
                level=None if "level" not in a else r.integer(f"{where}level", a["level"]),
                parry=None if "parry" not in a else str(a["parry"]),
                block=None if "block" not in a else str(a["block"]),
                acc=None if "acc" not in a else r.integer(f"{where}acc", a["acc"], 0, 30),
                bulk=None if "bulk" not in a else r.integer(f"{where}bulk", a["bulk"], -20, 0),
                shots=None if "shots" not in a else r.string(f"{where}shots", a["shots"], 20),
            )
        )
    return Sheet(
        system="gurps",
        name=name,
        source="TOML",
        traits=tuple(traits),
        attacks=tuple(attacks),
        swing=r.optional("swing", doc),
        thrust=r.optional("thrust", doc),
        hp=None if "hp" not in doc else r.integer(said["hp"], doc["hp"], 1, 10000),
        dr=_dr_table(r, doc.get("dr")),
        fp=None if "fp" not in doc else r.integer(said["fp"], doc["fp"], 1, 10000),
        basic_speed=None if "basic_speed" not in doc else _speed(r, said["basic_speed"], doc),
        hpt=combat.hpt,
        lpt=combat.lpt,
        injury_tolerance=combat.injury_tolerance,
    )


def _speed(r: _Reader, key: str, doc: dict[str, Any]) -> Fraction:
    """``basic_speed = 5.75``: Basic Speed (B17), to the hundredth."""
    value = doc["basic_speed"]
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1000:
        raise r.fail(key, f"should be a number from 0 to 1000, like 5.75, not {value!r}")
    hundredths = round(value * 100)
    if abs(value * 100 - hundredths) > 1e-6:
        raise r.fail(key, f"{value!r}: write Basic Speed to the hundredth at most, like 5.75")
    return Fraction(hundredths, 100)


def _combat(r: _Reader, doc: dict[str, Any], said: dict[str, str]) -> CombatTraits:
    """``advantages`` and ``disadvantages``: lists of names (``["High Pain Threshold"]``),
    or tables of a name and whether the character has it (``"High Pain Threshold" =
    true``); the names the rules read (:mod:`.advantages`) in any case. B59, B142:
    High and Low Pain Threshold exclude each other."""
    names: list[str] = []
    for key in ("advantages", "disadvantages"):
        given = doc.get(key, [])
        where = said.get(key, key)
        if isinstance(given, Mapping):
            for item, has in given.items():
                if not isinstance(has, bool):
                    raise r.fail(f"[{where}] {item}", f"should be true or false, not {has!r}")
                if has:
                    names.append(r.string(f"[{where}] {item}", item, 200))
        elif isinstance(given, list):
            names += [r.string(f"{where} {i}", n, 200) for i, n in enumerate(given, 1)]
        else:
            raise r.fail(where, 'should be a list of names, like ["High Pain Threshold"]')
    combat = combat_traits(names)
    if combat.hpt and combat.lpt:
        where = said.get("disadvantages", said.get("advantages", "advantages"))
        raise r.fail(where, "High and Low Pain Threshold exclude each other (B59, B142)")
    return combat


def _dr_table(r: _Reader, given: Any) -> tuple[tuple[str, int], ...]:
    """``dr = 2`` (over the torso and every location) or ``[dr]`` by location
    (``torso = 2``, ``skull = 4``)."""
    if given is None:
        return ()
    if not isinstance(given, Mapping):
        return (("torso", r.integer("dr", given, 0, 1000)),)
    out = []
    for key, value in given.items():
        where = str(key).lower()
        if where not in _LOCATIONS:
            raise r.fail(f"[dr] {key}", f"is no hit location ({', '.join(_LOCATIONS)})")
        out.append((where, r.integer(f"[dr] {key}", value, 0, 1000)))
    return tuple(out)


_LOCATIONS = ("torso", "vitals", "skull", "eye", "face", "neck", "groin", "arm", "leg", "hand",
              "foot")  # fmt: skip
"""The hit locations a ``[dr]`` table may name (*GURPS Basic Set*, B398)."""


def _swn(r: _Reader, name: str) -> Sheet:
    doc = r.doc
    r.keys(doc, {"system", "name", "level", "attributes", "skills", "combat", "weapons"}, "")
    if "level" not in doc:
        raise r.fail("level", "an SWN sheet needs the character's level")
    level = r.integer("level", doc["level"], 1, 20)
    attrs = r.table("attributes")
    r.keys(attrs, set(SWN_ATTRIBUTES), "[attributes] ")
    traits = [
        Trait(SWN_ATTRIBUTES[k], None, r.integer(f"[attributes] {k}", v, 3, 18), Kind.ATTRIBUTE)
        for k, v in attrs.items()
    ]
    for skill, lv in r.table("skills").items():
        where = f"[skills] {skill}"
        usual = None
        if isinstance(lv, Mapping):  # shoot = { level = 1, attribute = "dex" }
            r.keys(lv, {"level", "attribute"}, f"{where}: ")
            if "level" not in lv:
                raise r.fail(where, "needs a level")
            if "attribute" in lv:
                usual = r.string(f"{where} attribute", lv["attribute"], 3).lower()
                if usual not in SWN_ATTRIBUTES:
                    raise r.fail(where, f"{usual!r} is none of {', '.join(SWN_ATTRIBUTES)}")
            lv = lv["level"]
        traits.append(
            Trait(r.string("[skills]", skill, 60), None, r.integer(where, lv, 0, 4), Kind.SKILL,
                  attribute=usual)
        )  # fmt: skip
    combat = r.table("combat")
    r.keys(combat, {"attack_bonus", "ac", "hp"}, "[combat] ")
    weapons = []
    for i, w in enumerate(r.list_of_tables("weapons"), 1):
        where = f"[[weapons]] {i}: "
        r.keys(w, {"name", "damage", "skill", "attribute", "shock", "attack_bonus"}, where)
        if "name" not in w or "damage" not in w:
            raise r.fail("weapons", f"weapon {i} needs a name and a damage")
        attribute = w.get("attribute", [])
        picks = [attribute] if isinstance(attribute, str) else attribute
        if not isinstance(picks, list) or not all(
            isinstance(p, str) and p.casefold() in SWN_ATTRIBUTES for p in picks
        ):
            raise r.fail(f"{where}attribute", f"{attribute!r}: use str, dex... or a list of them")
        shock = r.optional("shock", w)
        if shock is not None and not _SHOCK.match(shock):
            raise r.fail(f"{where}shock", f"{shock!r}: write Shock as AMOUNT/AC, like 2/15")
        weapons.append(
            Attack(
                name=r.string(f"{where}name", w["name"], 100),
                usage=None,
                damage=r.string(f"{where}damage", w["damage"], 100),
                skill=None if "skill" not in w else r.string(f"{where}skill", w["skill"], 60),
                attributes=tuple(p.casefold() for p in picks),
                shock=shock,
                attack_bonus=r.integer(f"{where}attack_bonus", w.get("attack_bonus", 0), -10, 30),
            )
        )

    def get(key: str, lo: int, hi: int) -> int | None:
        return None if key not in combat else r.integer(f"[combat] {key}", combat[key], lo, hi)

    return Sheet(
        system="swn",
        name=name,
        source="TOML",
        traits=tuple(traits),
        attacks=tuple(weapons),
        level=level,
        attack_bonus=get("attack_bonus", -10, 30),
        ac=get("ac", 0, 40),
        hp=get("hp", 0, 1000),
    )


def _fudge(r: _Reader, name: str) -> Sheet:
    # here, not at the top: each import costs 12-18 ms of start-up otherwise (issue 53)
    from ..systems.fudge import LADDERS
    from ..systems.fudge.ladder import _ALIASES

    doc = r.doc
    r.keys(doc, {"system", "name", "ladder", "traits"}, "")
    wanted = "psi-punk" if "ladder" not in doc else r.string("ladder", doc["ladder"], 40)
    key = _ALIASES.get(wanted.casefold(), wanted.casefold())
    if key not in LADDERS:
        raise r.fail("ladder", f"{wanted!r} is not a built-in ladder ({', '.join(LADDERS)})")
    ladder = LADDERS[key]
    traits = []
    for trait, level in r.table("traits").items():
        if not isinstance(level, str | int) or isinstance(level, bool):
            raise r.fail(f"[traits] {trait}", f"{level!r}: write a ladder level, like Good")
        try:
            value = ladder.trait(level).value
        except RefereeError as exc:
            raise r.fail(f"[traits] {trait}", str(exc)) from None
        traits.append(Trait(r.string("[traits]", trait, 100), None, value, Kind.TRAIT))
    return Sheet(system="fudge", name=name, source="TOML", traits=tuple(traits), ladder=key)


def read_toml(data: bytes) -> Sheet:
    """A TOML sheet of any system.

    Raises:
        SheetError: malformed TOML (with its line), no or an unknown ``system``, or
            a value out of range or of the wrong type (naming its key and line).
    """
    doc = load_toml(data)
    r = _Reader(data.decode("utf-8-sig", "replace"), doc)
    system = doc.get("system")
    if system not in SYSTEMS:
        shown = "no system" if system is None else f"system {system!r}"
        raise r.fail("system", f'{shown}: a TOML sheet says system = "gurps", "swn" or "fudge"')
    name = r.string("name", doc["name"], 100) if "name" in doc else "the character"
    return {"gurps": _gurps, "swn": _swn, "fudge": _fudge}[str(system)](r, name)
