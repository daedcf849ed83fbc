"""Standings: what a finished match gives its players (results, ratings, levels,
achievements). Pure code, no I/O: :mod:`capicua.store.standings` stores it."""
