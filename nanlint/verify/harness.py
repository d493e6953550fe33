"""Prove each finding and its fix under XLA.

For every finding with a fix, the select expression and its fixed form are rebuilt as data trees
(translate.py) over their free variables; probe points come from the catalog (each op's poles, domain
edges and regular values). One worker process per framework evaluates all trees of a run under
`jax.jit(jax.grad)` or `tf.function(jit_compile=True)`, with a time and a memory limit, and the
verdict compares values and gradients before and after.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any, Optional

import libcst as cst

from nanlint.catalog import OP_INDEX, canonical_names
from nanlint.detector import Detector, LeakSite
from nanlint.diagnostics import Diagnostic
from nanlint.fixes import DISPLAY_ONLY, apply_edits
from nanlint.names import binding_at
from nanlint.verify.translate import Translator, Untranslatable, functions, variables

VERIFIED, FAILED, UNVERIFIABLE = "verified", "failed", "unverifiable"
# The framework a finding is verified with, and the extra that installs it.
BACKENDS = {"jax": "jax", "tensorflow": "tensorflow", "torch": "torch"}
EXTRAS = {"jax": "jax", "tensorflow": "tensorflow", "torch": "torch"}
REGULAR_PROBES = (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0)
MAX_PROBES_PER_VARIABLE = 14
MAX_GRID = 4096
DEFAULT_TIMEOUT_S = 300
MEMORY_LIMIT_BYTES = 12 * 1024**3


class BackendMissing(Exception):
    """The framework needed to verify a finding is not installed; the message names the extra."""


@dataclass
class Verification:
    status: str
    backend: Optional[str]
    leak_reproduced: bool = False
    reason: Optional[str] = None
    probes: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "backend": self.backend,
            "leak_reproduced": self.leak_reproduced,
            "reason": self.reason,
            "notes": self.notes,
            "probes": self.probes,
        }


@dataclass
class _Job:
    diagnostic: Diagnostic
    backend: str
    trees: dict[str, list]
    variables: dict[str, list[float]]
    polarity_true: bool = True


# --- building jobs ----------------------------------------------------------------------------------
def build_job(diagnostic: Diagnostic, detector: Detector, source: str) -> _Job | Verification:
    """The trees and probes for one finding, or the reason it cannot be verified."""
    site: LeakSite = diagnostic.site
    backend = BACKENDS.get(site.framework)
    if backend is None:
        return Verification(UNVERIFIABLE, None, reason=f"no verification backend for {site.framework} code")
    fix = diagnostic.fix
    if fix is None or fix.applicability == DISPLAY_ONLY or not fix.edits:
        return Verification(UNVERIFIABLE, backend, reason="the finding has no fix to verify")
    if site.select_fn.kind != "where" or not site.use.op.elementwise:
        return Verification(UNVERIFIABLE, backend, reason="only elementwise where/select findings can be probed pointwise")
    try:
        original = _select_trees(site, detector, detector.module)
        fixed_module = cst.parse_module(apply_edits(source, fix.edits))
        fixed = _fixed_tree(site, detector, fixed_module, fix.edits)
    except (Untranslatable, cst.ParserSyntaxError) as error:
        return Verification(UNVERIFIABLE, backend, reason=str(error))
    trees = {"original": original["select"], "fixed": fixed, "cond": original["cond"], "true": original["true"], "false": original["false"]}
    names = sorted(set().union(*(variables(t) for t in trees.values())))
    if not names:
        return Verification(UNVERIFIABLE, backend, reason="the expression has no free variable to probe")
    return _Job(diagnostic, backend, trees, _probe_grid(names, trees, site, detector))


def _select_trees(site: LeakSite, detector: Detector, module: cst.Module) -> dict[str, list]:
    position = detector.position(site.select)
    translator = Translator(detector.code, site.scope, position, _inline_for(site, detector))
    [true, false] = detector.branches_of(site.select, site.scope)
    return {
        "select": translator.tree(site.select),
        "cond": translator.tree(true.cond),
        "true": translator.tree(true.expr),
        "false": translator.tree(false.expr),
    }


def _inline_for(site: LeakSite, detector: Detector) -> dict[str, cst.BaseExpression]:
    """An indirect leak is verified through the definition of its local."""
    if site.use.via is None or site.use.definition is None:
        return {}
    binding = binding_at(site.scope, site.use.via.value, detector.position(site.select))
    return {site.use.via.value: binding.value} if binding is not None and binding.value is not None else {}


def _fixed_tree(site: LeakSite, detector: Detector, fixed_module: cst.Module, edits) -> list:
    """Find the same select in the fixed file and translate it, inlining names the fix introduced."""
    fixed = Detector(fixed_module, detector.catalog)
    start = detector.positions[site.select].start
    inserted_rows = sum(e.content.count("\n") for e in edits if (e.location.row, e.location.column) <= (start.line, start.column + 1) and e.location == e.end_location)
    target = (start.line + inserted_rows, start.column)
    for call, scope in fixed.index.calls:
        if fixed.position(call) == target:
            original_names = {b for s in detector.index.scope_of.values() for b in s.bindings}
            inline = {}
            for name, bindings in scope.bindings.items():
                value = binding_at(scope, name, fixed.position(call))
                if value is not None and value.value is not None and (name not in original_names or (site.use.via is not None and name == site.use.via.value)):
                    inline[name] = value.value
            return Translator(fixed.code, scope, fixed.position(call), inline).tree(call)
    raise Untranslatable("the fixed select could not be located")


def _probe_grid(names: list[str], trees: dict[str, list], site: LeakSite, detector: Detector) -> dict[str, list[float]]:
    """Per variable: the catalog's probes of every op the expression applies, the edges of the
    condition, and regular points; several variables make a grid."""
    op_probes: set[float] = set()
    for name in set().union(*(functions(t) for t in trees.values())):
        for candidate in canonical_names(name):
            if candidate in OP_INDEX:
                op_probes.update(OP_INDEX[candidate][0].probes)
    op_probes.update(site.use.op.probes)
    shift = _arg_shift(site, detector)
    values = sorted({*REGULAR_PROBES, *op_probes, *(p + shift for p in site.use.op.probes)}, key=lambda v: (abs(v) > 10, v))
    per_variable = [float(v) for v in values[:MAX_PROBES_PER_VARIABLE]]
    per_variable += [v for v in (float(p) for p in op_probes) if abs(v) > 10 and v not in per_variable]
    grid = list(itertools.product(per_variable, repeat=len(names)))
    if len(grid) > MAX_GRID:
        grid = [tuple(per_variable[(i + k) % len(per_variable)] for k in range(len(names))) for i in range(len(per_variable))]
    return {name: [point[i] for point in grid] for i, name in enumerate(names)}


def _arg_shift(site: LeakSite, detector: Detector) -> float:
    """`log(x - 1)`: the pole of the argument sits at x = 1, so probe there too."""
    arg = site.use.arg
    if isinstance(arg, cst.BinaryOperation) and isinstance(arg.operator, (cst.Add, cst.Subtract)):
        try:
            constant = float(detector.code(arg.right))
        except ValueError:
            return 0.0
        return constant if isinstance(arg.operator, cst.Subtract) else -constant
    return 0.0


# --- running ------------------------------------------------------------------------------------------
def check_backends(backends: set[str]) -> None:
    for backend in sorted(backends):
        if importlib.util.find_spec(backend) is None:
            raise BackendMissing(f"verifying {backend} code needs {backend}: pip install 'nanlint[{EXTRAS[backend]}]'")


def run_worker(request: dict, timeout_s: float) -> dict:
    """One worker process for a batch of jobs, with a time and a memory limit; a crash is a verdict."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "CUDA_VISIBLE_DEVICES": "", "TF_CPP_MIN_LOG_LEVEL": "3"}
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "nanlint.verify.worker"],
            input=json.dumps(request, allow_nan=True),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=env,
            preexec_fn=_limit_memory if os.name == "posix" else None,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"the verification worker ran past its {timeout_s:g} s limit"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"the verification worker stopped (exit {proc.returncode}): {last[:200]}"}
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"error": "the verification worker gave no readable answer"}


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def verify(items: list[tuple[Diagnostic, Detector, str]], *, dtype: str = "float32", timeout_s: float = DEFAULT_TIMEOUT_S) -> dict[int, Verification]:
    """Verify findings (diagnostic, its file's detector, its file's source); keyed by id(diagnostic)."""
    results: dict[int, Verification] = {}
    jobs: list[_Job] = []
    for diagnostic, detector, source in items:
        built = build_job(diagnostic, detector, source)
        if isinstance(built, Verification):
            results[id(diagnostic)] = built
        else:
            jobs.append(built)
    check_backends({job.backend for job in jobs})
    for backend in sorted({job.backend for job in jobs}):
        batch = [job for job in jobs if job.backend == backend]
        request = {
            "backend": backend,
            "dtype": dtype,
            "timeout_s": timeout_s,
            "jobs": [{"id": str(i), "variables": job.variables, "trees": job.trees} for i, job in enumerate(batch)],
        }
        response = run_worker(request, timeout_s)
        answers = {r.get("id"): r for r in response.get("results", [])}
        for i, job in enumerate(batch):
            answer = answers.get(str(i)) or {"error": response.get("error", "no answer from the worker")}
            results[id(job.diagnostic)] = judge(job, answer)
    return results


# --- judging -----------------------------------------------------------------------------------------
def judge(job: _Job, answer: dict) -> Verification:
    if "error" in answer:
        return Verification(UNVERIFIABLE, job.backend, reason=answer["error"])
    trees = answer["trees"]
    names = list(job.variables)
    count = len(job.variables[names[0]])
    before, after = trees["original"], trees["fixed"]
    cond = [bool(v) for v in trees["cond"]["value"]]
    probes = []
    failures: list[str] = []
    reproduced = False
    for i in range(count):
        point = {name: job.variables[name][i] for name in names}
        value_before, value_after = before["value"][i], after["value"][i]
        selected = trees["true"] if cond[i] else trees["false"]
        grads_before = {n: before["grad"][n][i] for n in names}
        grads_after = {n: after["grad"][n][i] for n in names}
        differentiable = _finite(selected["value"][i]) and all(_finite(selected["grad"][n][i]) for n in names)
        if not _same(value_before, value_after):
            failures.append(f"the value changed at {_point(point)}: {value_before} -> {value_after}")
        for n in names:
            if _finite(grads_before[n]) and not _close(grads_before[n], grads_after[n]):
                failures.append(f"d/d{n} changed at {_point(point)}: {grads_before[n]} -> {grads_after[n]}")
            if differentiable and not _finite(grads_after[n]):
                failures.append(f"d/d{n} is still {grads_after[n]} at {_point(point)}")
            if differentiable and not _finite(grads_before[n]):
                reproduced = True
        probes.append({"point": point, "value": value_before, "grad_before": grads_before, "grad_after": grads_after, "selected_differentiable": differentiable})
    notes = _eager_notes(job, answer)
    if failures:
        return Verification(FAILED, job.backend, reproduced, failures[0], probes, notes)
    reason = None if reproduced else "the leak did not reproduce at the probe points"
    return Verification(VERIFIED, job.backend, reproduced, reason, probes, notes)


def _eager_notes(job: _Job, answer: dict) -> list[str]:
    eager = answer.get("eager", {}).get("original", {}).get("grad")
    if not eager:
        return []
    xla = answer["trees"]["original"]["grad"]
    hidden = any(not _finite(xla[n][i]) and _finite(eager[n][i]) for n in xla for i in range(len(xla[n])))
    return ["TensorFlow eager mode hides this leak: only XLA (jit_compile=True) shows the NaN"] if hidden else []


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b or _close(a, b)


def _close(a, b) -> bool:
    try:
        return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6)
    except TypeError:
        return False


def _point(point: dict[str, float]) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in point.items())
