"""``referee verify``: the check of an exported log (:mod:`.verify`) and of the fight
it holds (:mod:`.fightcheck`)."""
