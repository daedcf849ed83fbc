"""The bots' compiled code (numba), one module per section; docs/bots-kernel.md.

The playouts: :mod:`.params` (the rules array, a position, result rows),
:mod:`.playout` (the loop and a batch from one position), :mod:`.evaluate`
(the move evaluator), :mod:`.fresh_deals` (fresh deals played out), on
:mod:`.policies` (the rollout policies), :mod:`.scoring` (the end of a hand),
:mod:`.bits` and :mod:`.rng`. Beside them: :mod:`.sampler` (hidden deals
consistent with a view), :mod:`.mixing` (the swap chain that makes them
uniform), :mod:`.playlik` (the play model's likelihood), :mod:`.warmup`, and
:mod:`.jit` (numba's cache keyed on every module here).

Kept out of :mod:`capicua.engine`, which is standard-library only; importing
these modules imports numpy and numba.
"""
