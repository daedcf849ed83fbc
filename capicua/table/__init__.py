"""The table domain, pure: the core, its log, protocol, seating, phrases, options, neighbours, fairness.

Nothing here imports asyncio, Starlette, SQLAlchemy or numba (tests/table/test_table_imports.py)."""
