"""``referee verify``: the check of an exported log (:mod:`.verify`), of each roll as a
reader reads it (:mod:`.replay`), of the server's signed heads (:mod:`.signatures`) and
of the fight it holds (:mod:`.fightcheck`); and the report of what it found
(:mod:`.report`)."""
