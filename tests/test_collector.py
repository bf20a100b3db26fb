"""The rooms' server keeps the garbage collector's pauses short (issue 29):
``referee.rooms.app.keep_gc``."""

from __future__ import annotations


async def test_the_collector_is_kept_short() -> None:
    """Issue 29: the server freezes what survived, now and then, so that a full collection
    walks only new objects; a cycle that became garbage after it was frozen waits for
    the sweep, which unfreezes, collects and freezes again."""
    import asyncio
    import gc
    import weakref

    from referee.rooms.app import keep_gc

    class Node:
        me: object = None

    gc.unfreeze()
    node = Node()
    node.me = node  # a cycle: only a collection frees it
    ref = weakref.ref(node)
    task = asyncio.create_task(keep_gc(freeze=0.02, sweep=3600.0))
    try:
        await asyncio.sleep(0.1)
        assert gc.get_freeze_count() > 0
        del node
        gc.collect()
        assert ref() is not None  # frozen: out of the collector's sight
        task.cancel()
        task = asyncio.create_task(keep_gc(freeze=0.02, sweep=0.0))  # sweep at once
        await asyncio.sleep(0.1)
        assert ref() is None  # the sweep collected it
        assert gc.get_freeze_count() > 0  # and froze the rest again
    finally:
        task.cancel()
        gc.unfreeze()


async def test_young_cycles_are_freed_not_frozen() -> None:
    """Issue 29: each tick collects the young generations before it freezes, so a cycle
    that is already garbage is freed then, not held frozen until the hourly sweep."""
    import asyncio
    import gc
    import weakref

    from referee.rooms.app import keep_gc

    class Node:
        me: object = None

    gc.unfreeze()
    gc.collect()
    gc.disable()  # only the tick may collect
    try:
        node = Node()
        node.me = node
        ref = weakref.ref(node)
        del node  # garbage, but only a collection frees a cycle
        assert ref() is not None
        task = asyncio.create_task(keep_gc(freeze=0.02, sweep=3600.0))
        await asyncio.sleep(0.1)
        task.cancel()
        assert gc.get_freeze_count() > 0
        assert ref() is None
    finally:
        gc.enable()
        gc.unfreeze()


async def test_the_young_threshold_is_raised_while_the_tick_runs() -> None:
    """Issue 51: while ``keep_gc`` runs, CPython's own young collection waits for
    ``young`` net new objects (the tick collects the young every second anyway), and
    the threshold is given back when the tick stops."""
    import asyncio
    import gc

    from referee.rooms.app import GC_YOUNG, keep_gc

    before = gc.get_threshold()
    task = asyncio.create_task(keep_gc(freeze=0.02, sweep=3600.0))
    try:
        await asyncio.sleep(0.05)
        assert gc.get_threshold() == (GC_YOUNG, *before[1:])
        assert GC_YOUNG > before[0]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        gc.unfreeze()
    assert gc.get_threshold() == before
