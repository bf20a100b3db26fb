"""Rolling in a room: reading a command under the room's caps (:mod:`.reading`), the
plans of commands already read (:mod:`.plans`), and rolling as a character (:mod:`.rollas`)."""
