"""The HTTP and socket routes: :mod:`.api` (and its :mod:`.models`), the GM's controls
(:mod:`.admin`), characters (:mod:`.characters`), the fight (:mod:`.fights`), the live
socket (:mod:`.live`), and :mod:`.hot`, the two busiest paths straight from ASGI."""
