"""The kernel's modules and numba's on-disk cache (capicua.bots.kernel.jit).

numba keys a cached function on its own file, while the machine code it caches
holds what it calls from other files; the kernel is split across modules, so
every cached kernel function is also keyed on all of the kernel's sources:

* an edit to a callee's module recompiles a cached caller in another module
  (a miniature two-module package, run twice in fresh processes);
* an unchanged package loads from the cache;
* every jitted kernel function is either inlined into its callers or cached
  that way (none with numba's plain ``cache=True``, none uncached);
* the modules import one another without a cycle.
"""

from __future__ import annotations

import ast
import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core.registry import CPUDispatcher

import capicua.bots.kernel as kernel_package
from capicua.bots.kernel.jit import KERNEL_SOURCES, _FolderStampedCache

CALLEE = '''
from pathlib import Path
from capicua.bots.kernel.jit import cached_njit

@cached_njit(sources=Path(__file__).parent)
def g(x):
    return x + {step}
'''

CALLER = '''
from pathlib import Path
from capicua.bots.kernel.jit import cached_njit
from mini.callee import g

@cached_njit(sources=Path(__file__).parent)
def f(x):
    return g(x) * 10
'''

RUN = "from mini.caller import f; print(f(1), sum(f.stats.cache_hits.values()))"


def _run(root: Path) -> tuple[int, int]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(root / "cache"))
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", RUN], env=env, cwd=root, capture_output=True, text=True,
                         check=True)
    value, hits = out.stdout.split()
    return int(value), int(hits)


def test_an_edit_to_a_callee_module_recompiles_its_cached_callers(tmp_path: Path) -> None:
    package = tmp_path / "mini"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "callee.py").write_text(CALLEE.format(step=1))
    (package / "caller.py").write_text(CALLER)
    assert _run(tmp_path) == (20, 0)  # compiled, then saved
    assert _run(tmp_path) == (20, 1)  # loaded from the cache
    (package / "callee.py").write_text(CALLEE.format(step=2))
    assert _run(tmp_path) == (30, 0)  # numba's cache=True alone gives (20, 1): the old callee
    assert _run(tmp_path) == (30, 1)


def _kernel_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(kernel_package.__path__))


def test_every_jitted_kernel_function_is_inlined_or_cached_on_the_whole_kernel() -> None:
    seen = 0
    for name in _kernel_modules():
        module = importlib.import_module(f"capicua.bots.kernel.{name}")
        for attr, value in vars(module).items():
            if not isinstance(value, CPUDispatcher) or value.__module__ != module.__name__:
                continue
            seen += 1
            if value.targetoptions.get("inline") == "always":
                continue  # compiled into its callers, and cached with them
            assert type(value._cache) is _FolderStampedCache, f"{name}.{attr}: use jit.cached_njit"
    assert seen > 20


def test_kernel_modules_import_one_another_without_a_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for name in _kernel_modules():
        tree = ast.parse((KERNEL_SOURCES / f"{name}.py").read_text())
        deps: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith("capicua.bots.kernel."):
                    deps.add(node.module.rsplit(".", 1)[1])
                elif node.module == "capicua.bots.kernel":
                    deps.update(alias.name for alias in node.names)
        graph[name] = deps
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            pytest.fail("import cycle: " + " -> ".join(path + (name,)))
        if name in done:
            return
        for dep in graph[name]:
            visit(dep, path + (name,))
        done.add(name)

    for name in graph:
        visit(name, ())
