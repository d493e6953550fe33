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
from typing import Callable, Optional

import libcst as cst

from nanlint.analysis.analyse import analyse_whole_file
from nanlint.analysis.detector import Detector
from nanlint.analysis.sites import LeakSite, MaskSite
from nanlint.analysis.syntax import is_number, number
from nanlint.catalog.tables import OP_INDEX, canonical_names
from nanlint.diagnostics import Diagnostic
from nanlint.fix.model import Applicability
from nanlint.verify.allowlist import NotAllowed, allowed_name
from nanlint.verify.translate import Translator, Untranslatable, functions, variables
from nanlint.verify.verdicts import DEFAULT_TIMEOUT_S, FAILED, UNVERIFIABLE, VERIFIED, VERIFIED_SELECT_ONLY, Verification

# Frameworks whose findings can be verified; each is installed by the extra of the same name.
BACKENDS = {"jax": "jax", "tensorflow": "tensorflow", "torch": "torch"}
REGULAR_PROBES = (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0)
MAX_PROBES_PER_VARIABLE = 14
MAX_GRID = 4096
MEMORY_LIMIT_BYTES = 12 * 1024**3


@dataclass
class _Job:
    diagnostics: list[Diagnostic]  # the findings of one select call share its verdict
    backend: str
    trees: dict[str, list]
    variables: dict[str, list[float]]
    judge: Optional[Callable[["_Job", dict], Verification]] = None  # another kind of job's verdict (NAN201's)
    # Why the trees are not the whole function's computation (a value from a call nanlint does not run).
    unmodeled: list[str] = field(default_factory=list)
    pointwise: bool = False  # a tree reduces (a norm): evaluate each probe point on its own
    assumed: list[str] = field(default_factory=list)  # what the trees take for granted (a dtype), for the notes


# --- building jobs ----------------------------------------------------------------------------------
def select_groups(result) -> dict[int, list[Diagnostic]]:
    """The findings of a file by the select call they are in (its start offset in the original text)."""
    groups: dict[int, list[Diagnostic]] = {}
    for d in result.diagnostics:
        if d.site is not None:
            groups.setdefault(result.detector.span(d.site.select)[0], []).append(d)
    return groups


def build_jobs(result, outcome) -> tuple[list[_Job], dict[int, Verification]]:
    """Jobs for every select call of one file that has findings, against the file after its fixes.

    The unit is the select call: all of its findings' fixes are in the fixed text together, so the
    verdict says whether the call, as nanlint leaves it, computes the same values with finite gradients.
    """
    jobs: list[_Job] = []
    verdicts: dict[int, Verification] = {}
    fixed_detector = None
    for offset, group in select_groups(result).items():
        try:
            if fixed_detector is None:
                fixed_detector = analyse_whole_file(outcome.source, result.detector.catalog, result.detector)
            # Found again by where it ends: a fix may rewrite the start of a select (its receiver, a
            # statement put before it), never its closing parenthesis.
            end = result.detector.span(group[0].site.select)[1]
            built = _build_job(group, result.detector, fixed_detector, outcome.to_final(end))
        except (Untranslatable, cst.ParserSyntaxError) as error:
            built = Verification(UNVERIFIABLE, BACKENDS.get(group[0].site.framework), reason=str(error))
        if isinstance(built, Verification):
            verdicts.update({id(d): built for d in group})
        else:
            jobs.append(built)
    return jobs, verdicts


def _build_job(group: list[Diagnostic], detector: Detector, fixed: Detector, fixed_end: int) -> _Job | Verification:
    mask = next((d.site for d in group if isinstance(d.site, MaskSite)), None)
    if mask is not None:
        return _build_mask_job(group, mask, detector, fixed, fixed_end)
    site: LeakSite = group[0].site
    backend = BACKENDS.get(site.framework)
    if backend is None:
        return Verification(UNVERIFIABLE, None, reason=f"no verification backend for {site.framework} code")
    if site.select_fn.kind != "where":
        return Verification(UNVERIFIABLE, backend, reason="only where/select findings can be probed pointwise")
    place = detector.place(site.select)
    runs = lambda name: _runs(name, backend)  # noqa: E731
    translator = Translator(detector.code, site.scope, place, runs=runs)
    true, false = detector.branches_of(site.select, site.scope)
    trees = {
        "original": translator.tree(site.select),
        "cond": translator.tree(true.cond),
        "true": translator.tree(true.expr),
        "false": translator.tree(false.expr),
    }
    fixed_translator, fixed_call = _fixed_translator(fixed, fixed_end, runs)
    trees["fixed"] = fixed_translator.tree(fixed_call)
    if trees["fixed"] == trees["original"]:
        return Verification(UNVERIFIABLE, backend, reason=_why_unchanged(group))
    if not any(variables(Translator(detector.code, site.scope, place, unmodeled=[], runs=runs).tree(d.site.use.arg)) for d in group if _translatable(d)):
        return Verification(UNVERIFIABLE, backend, reason="the argument cannot reach the pole: it is a constant")
    names = sorted(set().union(*(variables(t) for t in trees.values())))
    if not names:
        return Verification(UNVERIFIABLE, backend, reason="the expression has no free variable to probe")
    unmodeled = list(dict.fromkeys(translator.unmodeled + fixed_translator.unmodeled))
    pointwise = not all(d.site.use.op.elementwise for d in group if _translatable(d))
    assumed = list(dict.fromkeys(translator.assumed + fixed_translator.assumed))
    return _Job(group, backend, trees, _probe_grid(names, trees, group), unmodeled=unmodeled, pointwise=pointwise, assumed=assumed)


def _why_unchanged(group: list[Diagnostic]) -> str:
    """Why a select was left as it was: a fix nanlint only describes says why in its message."""
    advice = next((d.fix.message for d in group if d.fix is not None and d.fix.applicability is Applicability.DISPLAY_ONLY and d.fix.message), None)
    if advice is not None:
        return f"no fix was applied to this select, none can be: {advice}"
    return "no fix was applied to this select (none is offered, or it needs --unsafe-fixes)"


def _translatable(d: Diagnostic) -> bool:
    return d.site is not None and getattr(d.site, "use", None) is not None


def _fixed_translator(fixed: Detector, end: int, runs) -> tuple[Translator, cst.Call]:
    """The same select in the fixed text (the call that ends at `end`), and a translator there; the
    names a fix introduced (`ok = ...`) are locals like any other."""
    for call, scope in fixed.index.calls:
        if fixed.span(call)[1] == end:
            return Translator(fixed.code, scope, fixed.place(call), runs=runs), call
    raise Untranslatable("the fixed select could not be located")


def _probe_grid(names: list[str], trees: dict[str, list], group: list[Diagnostic]) -> dict[str, list[float]]:
    """Per variable: the catalog's probes of every op the expression applies, the edges of the
    condition, and regular points; several variables make a grid."""
    op_probes: set[float] = set()
    for name in set().union(*(functions(t) for t in trees.values())):
        for candidate in canonical_names(name):
            if candidate in OP_INDEX:
                op_probes.update(OP_INDEX[candidate][0].probes)
    shifted = {p + _arg_shift(d.site.use.arg) for d in group for p in d.site.use.op.probes}
    op_probes.update(p for d in group for p in d.site.use.op.probes)
    values = sorted({*REGULAR_PROBES, *op_probes, *shifted}, key=lambda v: (abs(v) > 10, v))
    per_variable = [float(v) for v in values[:MAX_PROBES_PER_VARIABLE]]
    per_variable += [v for v in (float(p) for p in op_probes) if abs(v) > 10 and v not in per_variable]
    if len(per_variable) ** len(names) <= MAX_GRID:
        grid = list(itertools.product(per_variable, repeat=len(names)))
    else:  # too many variables for every combination (the size is checked before any is made)
        grid = [tuple(per_variable[(i + k) % len(per_variable)] for k in range(len(names))) for i in range(len(per_variable))]
    return {name: [point[i] for point in grid] for i, name in enumerate(names)}


def _arg_shift(arg: cst.BaseExpression) -> float:
    """`log(x - 1)`: the pole of the argument sits at x = 1, so probe there too."""
    if isinstance(arg, cst.BinaryOperation) and isinstance(arg.operator, (cst.Add, cst.Subtract)):
        if is_number(arg.right):
            constant = number(arg.right)
            return constant if isinstance(arg.operator, cst.Subtract) else -constant
    return 0.0


# --- running ------------------------------------------------------------------------------------------
def installed(backend: str) -> bool:
    return importlib.util.find_spec(backend) is not None


def missing(backend: str) -> str:
    """Why findings of a framework that is not installed are not verified, and what to do."""
    return f"{backend} is not installed: pip install 'nanlint[{backend}]'"


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

    # Never above a limit the caller already set (`ulimit -v`): raising it is not allowed.
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = MEMORY_LIMIT_BYTES if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT_BYTES, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def verify(files: list[tuple], *, dtype: str = "float32", timeout_s: float = DEFAULT_TIMEOUT_S) -> dict[int, Verification]:
    """Verify the findings of each (FileResult with its analysis, FixOutcome of fixing it); keyed by id(diagnostic)."""
    results: dict[int, Verification] = {}
    jobs: list[_Job] = []
    for result, outcome in files:
        file_jobs, verdicts = build_jobs(result, outcome)
        jobs += file_jobs
        results.update(verdicts)
    for backend in sorted({job.backend for job in jobs}):
        batch = [job for job in jobs if job.backend == backend]
        if not installed(backend):  # the other frameworks' findings are verified all the same
            results.update({id(d): Verification(UNVERIFIABLE, backend, reason=missing(backend)) for job in batch for d in job.diagnostics})
            continue
        request = {
            "backend": backend,
            "dtype": dtype,
            "timeout_s": timeout_s,
            "jobs": [{"id": str(i), "variables": job.variables, "trees": job.trees, "pointwise": job.pointwise} for i, job in enumerate(batch)],
        }
        response = run_worker(request, timeout_s)
        if response.get("error") == f"backend not installed: {backend}":  # found, but it does not import
            response = {"error": missing(backend)}
        answers = {r.get("id"): r for r in response.get("results", [])}
        for i, job in enumerate(batch):
            answer = answers.get(str(i)) or {"error": response.get("error", "no answer from the worker")}
            verdict = (job.judge or judge)(job, answer)
            results.update({id(d): verdict for d in job.diagnostics})
    return results


# --- judging -----------------------------------------------------------------------------------------
def judge(job: _Job, answer: dict) -> Verification:
    if "error" in answer:
        return Verification(UNVERIFIABLE, job.backend, reason=answer["error"])
    trees = answer.get("trees", {})
    for label in ("true", "false"):
        if "grad" not in trees.get(label, {}) and "value" in trees.get(label, {}) and not variables(job.trees[label]):
            # A constant branch (`0`, an integer literal) depends on nothing: its gradient is zero.
            trees[label]["grad"] = {n: [0.0] * len(trees[label]["value"]) for n in job.variables}
    without = [label for label in ("original", "fixed", "true", "false") if "grad" not in trees.get(label, {})]
    if without:
        # A select of integers or booleans has no gradient: nothing can leak through it.
        return Verification(UNVERIFIABLE, job.backend, reason=f"the {without[0]} expression has no gradient (its value is not a floating-point tensor)")
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
        differentiable = finite(selected["value"][i]) and all(finite(selected["grad"][n][i]) for n in names)
        if not _same(value_before, value_after):
            failures.append(f"the value changed at {_point(point)}: {value_before} -> {value_after}")
        for n in names:
            if finite(grads_before[n]) and not _close(grads_before[n], grads_after[n]):
                failures.append(f"d/d{n} changed at {_point(point)}: {grads_before[n]} -> {grads_after[n]}")
            if differentiable and not finite(grads_after[n]):
                failures.append(f"d/d{n} is still {grads_after[n]} at {_point(point)}")
            if differentiable and not finite(grads_before[n]):
                reproduced = True
        probes.append({"point": point, "value": value_before, "grad_before": grads_before, "grad_after": grads_after, "selected_differentiable": differentiable})
    notes = job.assumed + _second_mode_notes(job, answer)
    if failures:
        return Verification(FAILED, job.backend, reproduced, failures[0], probes, notes)
    if not any(probe["selected_differentiable"] for probe in probes):
        # No probe where the function has a finite value and gradient: the fix is not shown to
        # keep any gradient, so nothing is proven.
        reason = "no probe point has a finite value and gradient in the selected branch: nothing was proven"
        return Verification(UNVERIFIABLE, job.backend, reproduced, reason, probes, notes)
    reason = None if reproduced else "the leak did not reproduce at the probe points"
    if job.unmodeled:
        # The select is proven; the function's gradient is not, where a value comes from outside the trees.
        return Verification(VERIFIED_SELECT_ONLY, job.backend, reproduced, job.unmodeled[0], probes, notes)
    return Verification(VERIFIED, job.backend, reproduced, reason, probes, notes)


def _second_mode_notes(job: _Job, answer: dict) -> list[str]:
    """What TensorFlow's eager mode or torch.compile shows that the verifying mode does not."""
    notes = []
    trees = answer["trees"]
    eager = answer.get("eager", {}).get("original", {}).get("grad")
    if eager and _nan_only_in(trees["original"]["grad"], eager):
        notes.append("TensorFlow eager mode hides this leak: only XLA (jit_compile=True) shows the NaN")
    compiled = answer.get("compiled", {})
    if compiled.get("fixed", {}).get("grad") is not None:
        if _nan_only_in(compiled["fixed"]["grad"], trees["fixed"]["grad"]):
            notes.append("under torch.compile the fixed gradient is still NaN at some probe")
        else:
            notes.append("torch.compile agrees: the fixed gradient is finite where autograd's is")
    if "second_mode_error" in answer:
        notes.append(f"not run in a second mode: {answer['second_mode_error']}")
    return notes


def _nan_only_in(grads: dict, others: dict) -> bool:
    """Some gradient is not finite in `grads` where it is in `others`."""
    return any(not finite(grads[n][i]) and finite(others[n][i]) for n in grads for i in range(len(grads[n])))


def finite(value) -> bool:
    """A number that is neither NaN nor infinite (values come back from the worker as JSON)."""
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


# --- NAN201: a NaN mask after the fact ----------------------------------------------------------------
# The mask is rebuilt with the computation its value comes from (locals followed back to their
# definitions, as far as the harness evaluates them), and run as it is and as the offered fix leaves it.
# It shows the point of the finding: where the masked value is finite and its gradient is not.
def _build_mask_job(group: list[Diagnostic], site: MaskSite, detector: Detector, fixed: Detector, fixed_end: int) -> _Job | Verification:
    backend = BACKENDS.get(site.framework)
    if backend is None:
        return Verification(UNVERIFIABLE, None, reason=f"no verification backend for {site.framework} code")
    if site.removed_test is not None:
        return Verification(UNVERIFIABLE, backend, reason=f"`{site.removed_test}` does not exist in TensorFlow 2: this code raises AttributeError before any gradient")
    translator = Translator(detector.code, site.scope, detector.place(site.select))
    trees = {"original": translator.tree(site.select), "value": translator.tree(site.value)}
    fixed_translator, fixed_call = _fixed_translator(fixed, fixed_end, lambda name: True)
    fixed_tree = fixed_translator.tree(fixed_call)
    if fixed_tree != trees["original"]:
        trees["fixed"] = fixed_tree
    unknown = sorted(name for name in set().union(*(functions(t) for t in trees.values())) if not _runs(name, backend))
    if unknown:
        return Verification(UNVERIFIABLE, backend, reason=f"`{unknown[0]}` is not a function the harness runs: the computation the value comes from cannot be rebuilt")
    names = sorted(set().union(*(variables(t) for t in trees.values())))
    if not names:
        return Verification(UNVERIFIABLE, backend, reason="the expression has no free variable to probe")
    return _Job(group, backend, trees, _probe_grid(names, trees, []), judge=judge_mask)


def _runs(name: str, backend: str) -> bool:
    try:
        allowed_name(name, backend)
    except NotAllowed:
        return False
    return True


def _nan(value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def judge_mask(job: _Job, answer: dict) -> Verification:
    """Masked points are where the value is not finite and the mask made it so. The finding is shown
    where a masked point's gradient is NaN, 0 * inf (preferring points at the producer's pole). With the
    offered fix applied, no masked point's gradient may be NaN, and the values and gradients where the
    mask keeps the value must be unchanged. (An infinite gradient is a true derivative that overflows,
    `log` at 1e-40 in float32: no mask makes it.)"""
    if "error" in answer:
        return Verification(UNVERIFIABLE, job.backend, reason=answer["error"])
    trees = answer["trees"]
    names = list(job.variables)
    before, unmasked = trees["original"], trees["value"]
    after = trees.get("fixed", before)
    at_pole = _pole_test(job)
    shown: list[tuple[bool, int, str]] = []
    failures: list[str] = []
    probes = []
    for i in range(len(job.variables[names[0]])):
        point = {name: job.variables[name][i] for name in names}
        grads_before = {n: before["grad"][n][i] for n in names}
        grads_after = {n: after["grad"][n][i] for n in names}
        masked = not finite(unmasked["value"][i]) and finite(before["value"][i])
        leaking = sorted((n for n in names if _nan(grads_before[n])), key=lambda n: not at_pole(n, point))
        if masked and leaking:
            n = leaking[0]
            shown.append((not at_pole(n, point), i, f"at {_point(point)} the masked value is finite ({before['value'][i]:g}) but d/d{n} is {grads_before[n]}"))
        if "fixed" in trees and masked and any(_nan(g) for g in grads_after.values()):
            failures.append(f"after the fix the gradient is still NaN at {_point(point)}")
        if "fixed" in trees and not masked and finite(unmasked["value"][i]):
            if not _same(before["value"][i], after["value"][i]):
                failures.append(f"the fix changed a value the mask keeps at {_point(point)}: {before['value'][i]} -> {after['value'][i]}")
            failures += [f"d/d{n} changed at {_point(point)}: {grads_before[n]} -> {grads_after[n]}" for n in names if finite(grads_before[n]) and not _close(grads_before[n], grads_after[n])]
        note = "masked: value finite, gradient not" if masked and leaking and "fixed" not in trees else None
        probes.append({"point": point, "value": before["value"][i], "grad_before": grads_before, "grad_after": grads_after, "selected_differentiable": finite(before["value"][i]), "note": note})
    if not shown:
        return Verification(UNVERIFIABLE, job.backend, False, "the NaN gradient did not reproduce: wherever the mask acts, the gradient is finite", probes)
    reason = f"{min(shown)[2]}: masking after the fact does not fix the gradient"
    if failures:
        return Verification(FAILED, job.backend, True, f"{reason}; {failures[0]}", probes)
    notes = ["after the offered fix (unsafe) the gradient is finite wherever the mask acted, and what it keeps is unchanged"] if "fixed" in trees else []
    return Verification(VERIFIED, job.backend, True, reason, probes, notes + _second_mode_notes(job, answer))


def _pole_test(job: _Job) -> Callable[[str, dict], bool]:
    """Whether a variable is the producer's argument, at a point in the op's leak domain."""
    site = next((d.site for d in job.diagnostics if isinstance(d.site, MaskSite)), None)
    use = site.use if site is not None else None
    arg = use.arg.value if use is not None and isinstance(use.arg, cst.Name) else None
    return lambda name, point: name == arg and use.leak_domain.contains(point[name])
