"""Compiled playouts for the bots (numba). See :mod:`capicua.bots.kernel.playouts`
and docs/bots-kernel.md. Kept out of :mod:`capicua.engine`, which is
standard-library only; importing this package imports numpy and numba."""
