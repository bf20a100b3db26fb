"""A combatant's values from a character sheet: what the fight tracks, as the sheet
records it, and what the rules derive when it does not."""

from __future__ import annotations

from ..sheets.model import Kind, Sheet
from ..systems.swn import attribute_modifier

__all__ = ["values_from"]


def values_from(sheet: Sheet) -> dict[str, int]:
    """The tracked values ``sheet`` gives (a fight's ``add`` event fills the rest):

    - GURPS: ST, DX, IQ, HT and Will from its attributes; HP, FP and Basic Speed (in
      hundredths) as the sheet gives them, else from ST, HT, and DX and HT
      (:func:`referee.fight.gurps.defaults`, B16-B17); its DR (``dr`` over the torso,
      ``dr_<location>`` where it differs); ``hpt`` 1 when it has High Pain Threshold
      (B59: no shock, +3 against knockdown) and ``lpt`` 1 Low Pain Threshold (B142:
      shock doubled, −4), as ``COMBAT.md``, "Shock, major wounds, knockdown
      (B419–B420)" applies them;
    - SWN: its HP, the Dex modifier (``003``, "Initiative and Rounds") and the Con
      score as the system strain maximum;
    - Fudge: nothing (Luck Points are not on a sheet referee reads).
    """
    attrs = {t.name.lower(): t.level for t in sheet.traits if t.kind is Kind.ATTRIBUTE}
    out: dict[str, int] = {}
    if sheet.system == "gurps":
        out = {k: attrs[k] for k in ("st", "dx", "iq", "ht", "will") if k in attrs}
        if sheet.hp is not None:
            out["hp_max"] = sheet.hp
        if sheet.fp is not None:
            out["fp_max"] = sheet.fp
        if sheet.basic_speed is not None:
            out["speed"] = round(sheet.basic_speed * 100)
        if sheet.dr:  # its DR, applied to damage rolls (contract v1.3): over the torso,
            # and at each location whose DR differs (``dr_skull``; a limb's is both sides')
            out["dr"] = sheet.dr_at("torso") or 0
            for where, dr in sheet.dr:
                key = "dr_" + where.removeprefix("right ").removeprefix("left ").replace(" ", "_")
                if dr != out["dr"] and key not in out and len(out) < 36:
                    out[key] = dr
        if sheet.hpt:
            out["hpt"] = 1
        if sheet.lpt:
            out["lpt"] = 1
    elif sheet.system == "swn":
        if sheet.hp is not None:
            out["hp_max"] = max(1, sheet.hp)
        if "dex" in attrs:
            out["dex_mod"] = attribute_modifier(attrs["dex"])
        if "con" in attrs:
            out["strain_max"] = attrs["con"]
    return out
