"""The package reads as its pipeline: prefilter -> analysis -> rules -> fix -> verify -> report, with
no import cycles between modules (lazy imports count), and no stage importing a later one. The
foundations every stage may use (the catalog, settings, the fix model, places in text) import no
stage."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "nanlint"
# Each stage may import from earlier stages and the foundations, never from later ones.
STAGES = ["prefilter", "analysis", "rules", "fix", "verify", "report"]
FOUNDATIONS = ["nanlint.catalog", "nanlint.config.settings", "nanlint.fix.model", "nanlint.source_lines", "nanlint.limits"]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Modules imported at run time anywhere in the file (not under `if TYPE_CHECKING:`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("nanlint") and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("nanlint"))
    return found


MODULES = {module_name(p): imports_of(p) for p in PACKAGE.rglob("*.py")}


def is_foundation(module: str) -> bool:
    return any(module == f or module.startswith(f + ".") for f in FOUNDATIONS)


def stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGES and not is_foundation(module) else None


def test_no_import_cycles() -> None:
    graph = {m: {i for i in deps if i in MODULES and i != m} for m, deps in MODULES.items()}
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for dep in sorted(graph[module]):
            if state.get(dep) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(dep):] + [dep]))
            if dep not in state:
                visit(dep, path + [dep])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_no_stage_imports_a_later_one() -> None:
    late = []
    for module, deps in MODULES.items():
        own = stage(module)
        if own is None:
            continue
        for dep in deps:
            other = stage(dep)
            if other is not None and STAGES.index(other) > STAGES.index(own):
                late.append(f"{module} imports {dep}")
    assert late == []


def test_the_foundations_import_no_stage() -> None:
    assert [(m, d) for m, deps in MODULES.items() if is_foundation(m) for d in deps if stage(d)] == []


def test_the_fix_model_imports_nothing_from_nanlint() -> None:
    assert MODULES["nanlint.fix.model"] == set()
