"""The packages are houses a newcomer can change: no import cycle, layers, no module over 500 lines.

Imports inside functions count too: they are where a cycle hides. ``autograder``'s
subpackages form layers (the course model at the top level, then isolation,
pipeline, grading, classroom, the sample class and the command line), and its
course model imports no nbgrader, so a small module stays quick to import.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "autograder"
PACKAGES = [PACKAGE, ROOT / "hpml_lab_utils"]
MAX_LINES = 500
COURSE_MODEL = ["paths", "labs", "lab_settings", "domains", "limits", "records", "spreadsheet"]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that ``path`` imports, at module level or inside a function."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = f"{base}.{node.module}" if node.level and node.module else (node.module or base)
            if node.module:  # `from . import x` imports the submodule x, not the package's __init__ again
                found.add(target)
            found |= {f"{target}.{a.name}" for a in node.names}
    return {m for m in found if m in modules and m != name}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    files = [p for p in package.rglob("*.py") if "work" not in p.relative_to(package).parts]
    modules = {module_name(p) for p in files}
    return {module_name(p): imports_of(p, modules) for p in files}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as a list of modules (first == last), or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return []


def test_find_cycle_sees_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_package_has_an_import_cycle():
    graph = import_graph()
    assert (
        "autograder.grading.worker" in graph and "autograder.grading.scheduler" in graph["autograder.grading.autograde"]
    )
    for package in PACKAGES:
        assert find_cycle(import_graph(package)) == [], package.name


def subpackage(module: str) -> str:
    """``autograder.grading.worker`` -> ``grading``; a top-level module is its own name."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_the_autograder_subpackages_form_layers():
    graph = import_graph()
    layers = {}
    for module, imported in graph.items():
        layers.setdefault(subpackage(module), set()).update(subpackage(m) for m in imported)
    for name in layers:
        layers[name].discard(name)
    assert find_cycle(layers) == [], "subpackages that import each other: merge them or move the shared piece down"
    for model in COURSE_MODEL:
        assert layers[model] <= set(COURSE_MODEL), f"autograder.{model} (the course model) imports {layers[model]}"


def test_the_course_model_imports_no_nbgrader():
    code = "; ".join(f"import autograder.{m}" for m in COURSE_MODEL)
    code += "; import sys; print(sorted(m for m in sys.modules if m.split('.')[0] in ('nbgrader', 'nbconvert')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", f"importing the course model imports {out.stdout.strip()}"


def test_no_module_is_over_500_lines():
    long = {
        module_name(p): n
        for package in PACKAGES
        for p in package.rglob("*.py")
        for n in [len(p.read_text(encoding="utf-8").splitlines())]
        if n > MAX_LINES
    }
    assert not long, f"split these by concept: {long}"
