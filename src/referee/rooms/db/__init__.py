"""The store: :mod:`.store` (SQLAlchemy 2, async; SQLite or PostgreSQL) over the tables of
:mod:`.schema` and Alembic's ``migrations/``; the appends (:mod:`.appends`, with :mod:`.heads`
and :mod:`.held` for PostgreSQL's one-statement batches), the epochs (:mod:`.epochs`),
sheets, administration and the fight (:mod:`.sheetstore`, :mod:`.adminstore`,
:mod:`.fightstore`), and moving a campaign between databases (:mod:`.copy`)."""
