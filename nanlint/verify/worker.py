"""The verification worker: the only place nanlint evaluates anything.

Run as `python -m nanlint.verify.worker`: it reads one JSON request on stdin and writes one JSON response
on stdout. Expressions arrive as JSON trees (never as source text), and the interpreter below only calls
framework functions and tensor methods on the allowlist (`nanlint.verify.allowlist`); it never uses
eval/exec and never imports user modules.

Gradients are taken in reverse mode under XLA (`jax.jit`, `tf.function(jit_compile=True)`), because TF
eager mode hides the sqrt/rsqrt/reciprocal leak. TensorFlow also reports eager gradients, as information.
torch has no XLA path here: autograd decides, and the original and fixed trees are also run under
`torch.compile` (where it runs: on the CPU it needs a C compiler), as information.
"""

from __future__ import annotations

import json
import operator
import os
import signal
import sys
import time
from contextlib import nullcontext
from typing import Any, Callable, Optional

import numpy as np

from nanlint.catalog.tables import DTYPE_NAMES
from nanlint.verify import allowlist
from nanlint.verify.allowlist import NotAllowed

_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
}
_UNARY: dict[str, Callable[[Any], Any]] = {"-": operator.neg, "+": operator.pos, "~": operator.invert}
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}
DTYPES = ("float16", "bfloat16", "float32", "float64")
MAX_DEPTH = 100
# The trees whose gradients are also reported in a framework's second mode (TF eager, torch.compile).
SECOND_MODE_TREES = ("original", "fixed")


class TreeError(ValueError):
    """A malformed expression tree."""


class _Interpreter:
    """Evaluates one tree over an environment of framework tensors."""

    def __init__(self, backend: str, env: dict[str, Any], as_tensor: Callable[[Any], Any], dtype: Callable[[str], Any]) -> None:
        self.backend = backend
        self.env = env
        self.as_tensor = as_tensor
        self.dtype = dtype  # a dtype's name ("probe": the probes' own) -> the framework's dtype

    def eval(self, tree: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise TreeError(f"tree deeper than {MAX_DEPTH}")
        if not isinstance(tree, list) or not tree or not isinstance(tree[0], str):
            raise TreeError(f"not a tree node: {str(tree)[:60]}")
        tag, rest, d = tree[0], tree[1:], depth + 1
        if tag == "var" and len(rest) == 1:
            if rest[0] not in self.env:
                raise TreeError(f"unknown variable: {rest[0]}")
            return self.env[rest[0]]
        if tag == "const" and len(rest) == 1:
            return _const(rest[0])
        if tag == "fn" and len(rest) in (2, 3):
            func = allowlist.resolve(rest[0], self.backend)  # refuses before any argument is evaluated
            return func(*self._args(rest[1], d), **self._kwargs(rest[2] if len(rest) == 3 else {}, d))
        if tag == "method" and len(rest) in (3, 4):
            name = allowlist.check_method(rest[0])
            receiver = self.eval(rest[1], d)
            if isinstance(receiver, (bool, int, float)):
                receiver = self.as_tensor(receiver)
            elif isinstance(receiver, (list, tuple)):
                raise TreeError(f"method {name} called on a {type(receiver).__name__}")
            method = getattr(receiver, name, None)
            if method is None:
                raise TreeError(f"{self.backend} tensors have no method {name}")
            return method(*self._args(rest[2], d), **self._kwargs(rest[3] if len(rest) == 4 else {}, d))
        if tag == "binop" and len(rest) == 3 and rest[0] in _BINOPS:
            left, right = self.eval(rest[1], d), self.eval(rest[2], d)
            if rest[0] == "**" and _is_int(left) and _is_int(right) and abs(right) > 64:
                left = float(left)  # a huge integer power of two constants would hang; floats overflow instead
            return _BINOPS[rest[0]](left, right)
        if tag == "unary" and len(rest) == 2 and rest[0] in _UNARY:
            return _UNARY[rest[0]](self.eval(rest[1], d))
        if tag == "compare" and len(rest) == 3 and rest[0] in _COMPARE:
            return _COMPARE[rest[0]](self.eval(rest[1], d), self.eval(rest[2], d))
        if tag == "dtype" and len(rest) == 1 and (rest[0] in DTYPE_NAMES or rest[0] == "probe"):
            return self.dtype(rest[0])
        if tag == "dtype_of" and len(rest) == 1:
            value = self.eval(rest[0], d)
            return value.dtype if hasattr(value, "dtype") else self.dtype("probe")
        if tag in ("tuple", "list") and len(rest) == 1 and isinstance(rest[0], list):
            items = [self.eval(item, d) for item in rest[0]]
            return tuple(items) if tag == "tuple" else items
        raise TreeError(f"malformed {tag!r} node")

    def _args(self, args: Any, depth: int) -> list[Any]:
        if not isinstance(args, list):
            raise TreeError("arguments must be a list")
        return [self.eval(a, depth) for a in args]

    def _kwargs(self, kwargs: Any, depth: int) -> dict[str, Any]:
        if not isinstance(kwargs, dict) or not all(isinstance(k, str) and k.isidentifier() for k in kwargs):
            raise TreeError("keywords must be a mapping of identifiers")
        return {k: self.eval(v, depth) for k, v in kwargs.items()}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _const(value: Any) -> Any:
    if isinstance(value, bool) or isinstance(value, float):
        return value
    if _is_int(value):
        if abs(value) > 2**63:
            raise TreeError("integer constant out of range")
        return value
    raise TreeError(f"constants must be numbers or booleans, got {type(value).__name__}")


def _to_list(array: Any, n: Optional[int] = None) -> list:
    """A JSON-ready list; floats widen to float64 so bfloat16/float16 serialize exactly."""
    arr = np.asarray(array)
    if n is not None:
        arr = np.broadcast_to(arr, (n,))
    if arr.dtype == np.bool_:
        return arr.tolist()
    if np.issubdtype(arr.dtype, np.integer):
        return arr.astype(np.int64).tolist()
    return arr.astype(np.float64).tolist()


class _Backend:
    """One framework: turns (tree, inputs) into the value and the reverse-mode gradients."""

    name = ""
    second_mode: Optional[str] = None  # a second way to run the original and fixed trees, as information

    def __init__(self, dtype: str) -> None:
        self.dtype = dtype
        # Compiled functions, reused across jobs: (tree json, variable names, float mask, mode) -> fn.
        self.cache: dict[tuple, Callable[..., Any]] = {}

    def version(self) -> dict[str, str]:
        raise NotImplementedError

    def context(self) -> Any:
        return nullcontext()

    def inputs(self, arrays: list[np.ndarray]) -> list[Any]:
        raise NotImplementedError

    def evaluate(self, tree: Any, names: list[str], inputs: list[Any], floats: list[bool], second: bool) -> tuple[Any, Optional[list[Any]]]:
        """(value, gradients of sum(value) for the float inputs, or None for a non-float value), in
        the backend's verifying mode or, with `second`, its second mode."""
        raise NotImplementedError

    def interpreter(self, names: list[str], xs: tuple) -> _Interpreter:
        return _Interpreter(self.name, dict(zip(names, xs)), self.as_tensor, self.named_dtype)

    def named_dtype(self, name: str) -> Any:
        """The framework's dtype of that name; "probe" is the dtype the probes run in."""
        raise NotImplementedError

    def as_tensor(self, value: Any) -> Any:
        raise NotImplementedError

    def _cached(self, key: tuple, build: Callable[[], Callable[..., Any]]) -> Callable[..., Any]:
        if key not in self.cache:
            self.cache[key] = build()
        return self.cache[key]


class _Jax(_Backend):
    name = "jax"

    def __init__(self, dtype: str) -> None:
        super().__init__(dtype)
        import jax
        import jax.numpy as jnp

        self.jax, self.jnp = jax, jnp

    def version(self) -> dict[str, str]:
        return {"jax": self.jax.__version__}

    def context(self) -> Any:
        # float64 needs x64 mode; a context keeps it from leaking into an in-process caller.
        return self.jax.enable_x64(True) if self.dtype == "float64" else nullcontext()

    def inputs(self, arrays: list[np.ndarray]) -> list[Any]:
        return [self.jnp.asarray(a, dtype=a.dtype if a.dtype == np.bool_ else self.dtype) for a in arrays]

    def as_tensor(self, value: Any) -> Any:
        return self.jnp.asarray(value)

    def named_dtype(self, name: str) -> Any:
        return self.jnp.dtype(self.dtype if name == "probe" else name)

    def evaluate(self, tree, names, inputs, floats, second):
        jax, jnp = self.jax, self.jnp

        def fn(*xs):
            return jnp.asarray(self.interpreter(names, xs).eval(tree))

        key = (json.dumps(tree, sort_keys=True), tuple(names), tuple(floats))
        out = jax.eval_shape(fn, *inputs)  # traces only: decides whether there is a gradient to take
        argnums = tuple(i for i, f in enumerate(floats) if f)
        if not jnp.issubdtype(out.dtype, jnp.floating) or not argnums:
            value = self._cached(key + ("value",), lambda: jax.jit(fn))(*inputs)
            return value, (None if not jnp.issubdtype(out.dtype, jnp.floating) else [])

        def summed(*xs):
            value = fn(*xs)
            return jnp.sum(value), value

        grad_fn = self._cached(key + ("grad",), lambda: jax.jit(jax.value_and_grad(summed, argnums=argnums, has_aux=True)))
        (_, value), grads = grad_fn(*inputs)
        return value, list(grads)


class _TensorFlow(_Backend):
    name = "tensorflow"
    second_mode = "eager"  # eager mode hides some leaks that XLA shows: reported next to XLA's

    def __init__(self, dtype: str) -> None:
        super().__init__(dtype)
        import tensorflow as tf

        tf.get_logger().setLevel("ERROR")
        self.tf = tf

    def version(self) -> dict[str, str]:
        return {"tensorflow": self.tf.__version__}

    def inputs(self, arrays: list[np.ndarray]) -> list[Any]:
        tf = self.tf
        return [tf.constant(a, dtype=tf.bool if a.dtype == np.bool_ else tf.as_dtype(self.dtype)) for a in arrays]

    def as_tensor(self, value: Any) -> Any:
        return self.tf.convert_to_tensor(value)

    def named_dtype(self, name: str) -> Any:
        return self.tf.as_dtype(self.dtype if name == "probe" else name)

    def evaluate(self, tree, names, inputs, floats, second):
        tf = self.tf

        def value_and_grads(*xs):
            watched = [x for x, f in zip(xs, floats) if f]
            with tf.GradientTape() as tape:
                for x in watched:
                    tape.watch(x)
                value = tf.convert_to_tensor(self.interpreter(names, xs).eval(tree))
                if not value.dtype.is_floating:
                    return value, None
                # The sum stays inside the tape: outside it, the tape would not see it.
                total = tf.reduce_sum(value)
            grads = tape.gradient(total, watched, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            return value, grads

        if second:
            return value_and_grads(*inputs)
        key = (json.dumps(tree, sort_keys=True), tuple(names), tuple(floats))
        compiled = self._cached(key, lambda: tf.function(value_and_grads, jit_compile=True))
        value, grads = compiled(*inputs)
        return value, (None if grads is None else list(grads))


class _Torch(_Backend):
    name = "torch"
    second_mode = "compiled"

    def __init__(self, dtype: str) -> None:
        super().__init__(dtype)
        import torch

        self.torch = torch

    def version(self) -> dict[str, str]:
        return {"torch": self.torch.__version__}

    def inputs(self, arrays: list[np.ndarray]) -> list[Any]:
        torch = self.torch
        dtype = getattr(torch, self.dtype)
        return [torch.tensor(a) if a.dtype == np.bool_ else torch.tensor(a, dtype=dtype) for a in arrays]

    def as_tensor(self, value: Any) -> Any:
        return self.torch.as_tensor(value)

    def named_dtype(self, name: str) -> Any:
        return getattr(self.torch, self.dtype if name == "probe" else name)

    def evaluate(self, tree, names, inputs, floats, second):
        torch = self.torch
        # Fresh leaves per tree: an in-place method in one tree must not change another tree's inputs.
        xs = [x.clone().requires_grad_(f) for x, f in zip(inputs, floats)]
        watched = [x for x, f in zip(xs, floats) if f]

        def fn(*args):
            return torch.as_tensor(self.interpreter(names, args).eval(tree))

        if second:
            key = (json.dumps(tree, sort_keys=True), tuple(names), tuple(floats))
            fn = self._cached(key, lambda: torch.compile(fn, dynamic=False))
        with torch.enable_grad():
            value = fn(*xs)
            if not value.is_floating_point():
                return value.detach(), None
            if not value.requires_grad or not watched:  # the tree does not depend on any input
                return value.detach(), [torch.zeros_like(x) for x in watched]
            grads = torch.autograd.grad(value.sum(), watched, allow_unused=True)
        grads = [torch.zeros_like(x) if g is None else g for x, g in zip(watched, grads)]
        return value.detach(), [g.detach() for g in grads]


_BACKENDS: dict[str, type[_Backend]] = {"jax": _Jax, "tensorflow": _TensorFlow, "torch": _Torch}
# One backend object per (framework, dtype) per process, so compiled functions are reused across requests.
_LOADED: dict[tuple[str, str], _Backend] = {}


def _force_cpu() -> None:
    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"


def _one_line(exc: BaseException) -> str:
    """The cause, on one line: an error whose message carries a traceback of its own (TensorFlow's
    StagingError quotes the user code it traced) is named by its last line, where the cause is."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if isinstance(exc, (NotAllowed, TreeError)):
        text = " ".join(lines)
    elif len(lines) > 1 and any(line.startswith("File ") for line in lines):
        text = f"{type(exc).__name__}: {lines[-1]}"
    else:
        text = f"{type(exc).__name__}: {' '.join(lines)}" if lines else type(exc).__name__
    return text[:300]


def _to_numpy(tensor: Any) -> np.ndarray:
    if hasattr(tensor, "detach"):  # torch; numpy has no bfloat16, so widen floats first
        tensor = tensor.detach().cpu()
        tensor = tensor.double() if tensor.is_floating_point() else tensor
    return np.asarray(tensor)


def _run_job(backend: _Backend, job: Any) -> dict[str, Any]:
    if not isinstance(job, dict):
        raise TreeError("a job must be an object")
    variables, trees = job.get("variables"), job.get("trees")
    if not isinstance(variables, dict) or not isinstance(trees, dict):
        raise TreeError("a job needs 'variables' and 'trees' objects")
    names = list(variables)
    arrays = []
    for name in names:
        values = variables[name]
        if not isinstance(values, list) or not all(isinstance(v, (bool, int, float)) for v in values):
            raise TreeError(f"variable {name} must be a list of numbers")
        is_bool = bool(values) and all(isinstance(v, bool) for v in values)
        arrays.append(np.asarray(values, dtype=np.bool_ if is_bool else np.float64))
    lengths = {a.shape[0] for a in arrays}
    if len(lengths) > 1:
        raise TreeError(f"variables have different lengths: {sorted(lengths)}")
    n = lengths.pop() if lengths else 1
    floats = [a.dtype != np.bool_ for a in arrays]
    float_names = [name for name, f in zip(names, floats) if f]

    # A tree that reduces (a norm) is evaluated one probe point at a time: over the whole probe vector
    # it would reduce across points. Elementwise trees take every point at once.
    batches = [[a[i : i + 1] for a in arrays] for i in range(n)] if job.get("pointwise") else [arrays]
    out: dict[str, Any] = {"id": job.get("id"), "trees": {}}
    with backend.context():
        modes = [("trees", False)] + ([(backend.second_mode, True)] if backend.second_mode and job.get("second_mode", True) else [])
        for section, second in modes:
            for label, tree in trees.items():
                if tree is None or (second and label not in SECOND_MODE_TREES):
                    continue
                try:
                    parts = [backend.evaluate(tree, names, backend.inputs(batch), floats, second) for batch in batches]
                except Exception as exc:
                    if not second:
                        raise
                    out.setdefault("second_mode_error", f"{section}: {_one_line(exc)}")  # information only
                    continue
                size = 1 if len(batches) > 1 else n
                values = [v for value, _ in parts for v in _to_list(_to_numpy(value), size)]
                grads = None if parts[0][1] is None else {
                    name: [g for _, part in parts for g in _to_list(_to_numpy(part[k]), size)] for k, name in enumerate(float_names)
                }
                if second:
                    if grads is not None:
                        out.setdefault(section, {})[label] = {"grad": grads}
                    continue
                result: dict[str, Any] = {"value": values}
                if grads is not None:
                    result["grad"] = grads
                out["trees"][label] = result
    return out


class _Timeout(Exception):
    pass


def run_request(request: Any) -> dict[str, Any]:
    """Evaluate every job of a request; a failing job becomes {"id", "error"} and the others still run."""
    if not isinstance(request, dict):
        return {"error": "malformed request: expected a JSON object"}
    name, dtype = request.get("backend"), request.get("dtype", "float32")
    if name not in _BACKENDS:
        return {"error": f"unknown backend: {name!r}"}
    if dtype not in DTYPES:
        return {"error": f"unsupported dtype: {dtype!r}"}
    jobs = request.get("jobs", [])
    if not isinstance(jobs, list):
        return {"error": "malformed request: 'jobs' must be a list"}
    timeout = request.get("timeout_s", 60)
    deadline = time.monotonic() + (timeout if isinstance(timeout, (int, float)) else 60)

    _force_cpu()
    try:
        if (name, dtype) not in _LOADED:
            _LOADED[name, dtype] = _BACKENDS[name](dtype)
        backend = _LOADED[name, dtype]
    except ImportError:
        return {"backend": name, "error": f"backend not installed: {name}"}

    results = []
    for job in jobs:
        job_id = job.get("id") if isinstance(job, dict) else None
        if time.monotonic() >= deadline:
            results.append({"id": job_id, "error": f"not run: the request ran past timeout_s={timeout}"})
            continue
        try:
            results.append(_run_job(backend, job))
        except Exception as exc:  # isolate jobs: one bad tree must not lose the others' results
            results.append({"id": job_id, "error": _one_line(exc)})
    return {"backend": name, "versions": backend.version(), "results": results}


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Timeout("the request ran past timeout_s")


def main() -> int:
    # Only the JSON response may reach stdout: route fd 1 (C++ logging too) and sys.stdout to stderr.
    sys.stdout.flush()
    response_stream = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        request = json.loads(sys.stdin.read())
        timeout = request.get("timeout_s", 60) if isinstance(request, dict) else 60
        if isinstance(timeout, (int, float)) and timeout > 0 and hasattr(signal, "SIGALRM"):
            # A backstop that interrupts a job stuck in Python; run_request skips the jobs after it.
            signal.signal(signal.SIGALRM, _on_alarm)
            signal.alarm(int(timeout) + 1)
        response = run_request(request)
    except json.JSONDecodeError as exc:
        response = {"error": f"malformed request: {_one_line(exc)}"}
    except BaseException as exc:  # never a traceback on stdout: always one JSON object
        response = {"error": _one_line(exc)}
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.alarm(0)
    response_stream.write(json.dumps(response, allow_nan=True))
    response_stream.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
