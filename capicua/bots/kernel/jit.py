"""``njit`` with numba's on-disk cache, keyed on every module of the kernel.

numba keys a function's on-disk cache (``cache=True``) on the function's own
source file. The machine code it caches holds everything the function inlines
or calls, and in this package most of that lives in other modules: the bit
operations (:mod:`.bits`), the random stream (:mod:`.rng`), the end of a hand
(:mod:`.scoring`), the rollout policies (:mod:`.policies`). With ``cache=True``
alone, an edit to one of those modules would leave every cached caller in
another module running the code from before the edit, silently (numba does
not follow calls across files; numba issue #6845, pull request #8396 unmerged).

:func:`cached_njit` is ``njit(cache=True)`` whose cache is also stamped with a
digest of the source of every module beside it: an edit anywhere in the
package recompiles every cached kernel function on its next call, as an edit
recompiled everything when the kernel was one file. Everything else about the
cache is numba's (where it lives, ``NUMBA_CACHE_DIR``, loading in ~0.2 s).

It sets what ``Dispatcher.enable_caching`` sets (numba's own ``cache=True``)
with a cache whose source stamp is extended; those are numba internals,
``tests/bots/test_kernel_cache.py`` holds them to the behaviour above.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar, cast

from numba import njit
from numba.core.caching import FunctionCache, IndexDataCacheFile

_Jitted = TypeVar("_Jitted", bound=Callable[..., Any])

KERNEL_SOURCES = Path(__file__).resolve().parent


@lru_cache(maxsize=8)
def source_digest(folder: Path) -> str:
    """sha256 over the names and bytes of the ``*.py`` files in ``folder``."""
    h = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        h.update(path.name.encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


class _FolderStampedCache(FunctionCache):
    """numba's per-function cache whose index is void when the function's
    file or any source file of ``folder`` changed (numba resets a void index
    and overwrites its data files, so the cache does not grow with edits)."""

    def __init__(self, py_func: Callable[..., Any], folder: Path) -> None:
        super().__init__(py_func)  # type: ignore[no-untyped-call]
        stamp = (self._impl.locator.get_source_stamp(), source_digest(folder))
        self._cache_file = IndexDataCacheFile(  # type: ignore[no-untyped-call]
            cache_path=self._cache_path, filename_base=self._impl.filename_base, source_stamp=stamp
        )


def cached_njit(*, nrt: bool = True, sources: Path = KERNEL_SOURCES) -> Callable[[_Jitted], _Jitted]:
    """``njit(cache=True)`` with the cache stamped by every source file of
    ``sources`` (the kernel's folder). ``nrt=False`` compiles without numba's
    reference counting (its ``_nrt`` option, which the typed signature of
    ``njit`` does not list): for functions that allocate nothing."""
    options: dict[str, Any] = {} if nrt else {"_nrt": False}

    def decorate(func: _Jitted) -> _Jitted:
        dispatcher = njit(**options)(func)
        dispatcher._cache = _FolderStampedCache(func, sources)
        return cast(_Jitted, dispatcher)

    return decorate
