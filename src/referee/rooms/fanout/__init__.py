"""Live fan-out: each room's new entries to each socket of one server (:mod:`.broker`)
and across servers through PostgreSQL ``LISTEN/NOTIFY`` (:mod:`.notices`)."""
