"""The server's heap keeper: frozen every second, swept in full every few minutes."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from capicua.server.runtime.heap import HeapKeeper


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # leave the test process's collector as it found it


def test_a_step_freezes_the_heap_and_a_sweep_collects_the_cycles_frozen_alive(unfrozen: None) -> None:
    keeper = HeapKeeper(sweep_every_s=300.0)
    start = keeper.last_sweep
    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle: only the collector can free it
    alive = weakref.ref(a)
    keeper.step(start + 1.0)
    assert gc.get_freeze_count() > 0 and keeper.sweeps == 0
    del a, b
    gc.collect()
    assert alive() is not None  # frozen while alive: out of the collector's reach
    keeper.step(start + 2.0)
    assert alive() is not None and keeper.sweeps == 0
    keeper.step(start + 301.0)  # the sweep: unfrozen, collected in full, frozen again
    assert alive() is None and keeper.sweeps == 1
    assert gc.get_freeze_count() > 0


def test_objects_die_by_reference_count_while_frozen(unfrozen: None) -> None:
    keeper = HeapKeeper()
    n = Node()
    gone = weakref.ref(n)
    keeper.step()
    del n  # no cycle: freed at once, frozen or not
    assert gone() is None
