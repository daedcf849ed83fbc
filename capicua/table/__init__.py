"""The table domain, pure: the core and its concerns (commands, presence, hands, lobby, aftermatch,
talk, timers, botmoves), its log, protocol, seating, phrases, options, neighbours, fairness,
the replay's pure part.

Nothing here imports asyncio, Starlette, SQLAlchemy or numba (tests/table/test_table_imports.py)."""
