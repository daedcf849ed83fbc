"""The import rules of the tree (docs/architecture.md): the table domain is pure,
and the socket tier reaches a table through its protocol only."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import capicua

PACKAGE = Path(capicua.__file__).resolve().parent
FORBIDDEN_IN_TABLE = ("asyncio", "starlette", "uvicorn", "sqlalchemy", "numba", "llvmlite", "capicua.server", "capicua.store")


def _imports(path: Path) -> set[str]:
    """Every module a file imports, by its absolute name."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_importing_the_table_package_loads_no_io_or_jit() -> None:
    """In a fresh interpreter, every module of capicua.table imported, and none of
    asyncio, Starlette, SQLAlchemy, numba or the server came with them."""
    modules = sorted(p.stem for p in (PACKAGE / "table").glob("*.py") if p.stem != "__init__")
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module('capicua.table.' + m)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN_IN_TABLE!r} or "
        f"any(m == f or m.startswith(f + '.') for f in {FORBIDDEN_IN_TABLE!r}))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"capicua.table pulled in: {out}"


def test_no_table_module_names_a_forbidden_import() -> None:
    """The same rule read from the source, so a lazy import inside a function is caught too."""
    for path in sorted((PACKAGE / "table").glob("*.py")):
        bad = {m for m in _imports(path) if any(m == f or m.startswith(f + ".") for f in FORBIDDEN_IN_TABLE)}
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_the_gateway_never_imports_the_table_core() -> None:
    """The socket tier may read capicua.table.protocol; the core is the owner's alone."""
    for path in sorted((PACKAGE / "server" / "gateway").glob("*.py")):
        inside = {m for m in _imports(path) if m.startswith("capicua.table.") and not m.startswith("capicua.table.protocol")}
        assert not inside, f"gateway/{path.name} imports {sorted(inside)}"


def test_the_levels_a_table_offers_are_levels_the_bots_play() -> None:
    from capicua import bots
    from capicua.table.options import NEIGHBOUR_LEVELS

    assert set(NEIGHBOUR_LEVELS) <= set(bots.LEVELS)
    assert not set(NEIGHBOUR_LEVELS) & set(bots.CHEATING_LEVELS)


def test_the_engine_imports_only_the_standard_library() -> None:
    for path in sorted((PACKAGE / "engine").glob("*.py")):
        outside = {m.split(".")[0] for m in _imports(path)} - set(sys.stdlib_module_names) - {"capicua", "__future__"}
        assert not outside, f"engine/{path.name} imports {sorted(outside)}"
        assert not {m for m in _imports(path) if m.startswith("capicua.") and not m.startswith("capicua.engine")}
