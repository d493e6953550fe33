"""Code that reverse-mode autodiff never differentiates, so a where there cannot leak NaN gradients.

- the primal of a function with a hand-written derivative: decorated with `custom_jvp`, `custom_vjp`,
  `custom_gradient` (JAX, TensorFlow, TFP), registered with `f.defjvp(...)`/`f.defvjp(...)`, wrapped by
  `custom_jvp(f)`, lowered with `lower_fun(f)` as a primitive's implementation, or the `forward` of a
  `torch.autograd.Function`;
- private helpers (`_name`) that only such functions call;
- `torch.no_grad()` / `torch.inference_mode()` blocks and functions decorated with them;
- the body of a `lax.while_loop`, which JAX cannot differentiate in reverse mode.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Optional

import libcst as cst

from nanlint.names import leaf_name

_CUSTOM_DECORATORS = ("custom_jvp", "custom_vjp", "custom_gradient", "custom_derivative")
_NO_GRAD = ("no_grad", "inference_mode", "stop_recording")
_REGISTRATIONS = frozenset({"defjvp", "defvjp", "defjvps"})
_WRAPPERS = frozenset({"custom_jvp", "custom_vjp", "custom_gradient", "lower_fun"})
# lax.while_loop(cond_fun, body_fun, init): JAX cannot differentiate a while loop in reverse mode.
_LOOP_BODIES = {"while_loop": 1}


class Contexts(cst.CSTVisitor):
    """One pass over a module; then `excluded(call)` says whether a select call is never differentiated."""

    def __init__(self, code_for) -> None:
        self.code_for = code_for
        self._functions: list[str] = []  # enclosing function names, innermost last
        self._no_grad = 0
        self._classes: list[bool] = []  # enclosing classes: is it a torch.autograd.Function?
        self._at_call: dict[int, tuple[tuple[str, ...], bool]] = {}
        self._custom: set[str] = set()
        self._defined: set[str] = set()
        self._uses: dict[str, set[Optional[str]]] = defaultdict(set)
        self._def_names: set[int] = set()
        self._decorated_no_grad: list[bool] = []
        self._resolved: Optional[set[str]] = None

    # --- collection ------------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(any(self.code_for(b.value).endswith("Function") for b in node.bases))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        name = node.name.value
        self._def_names.add(id(node.name))
        decorators = [self.code_for(d.decorator) for d in node.decorators]
        if any(word in text for text in decorators for word in _CUSTOM_DECORATORS):
            self._custom.add(name)
        if self._classes and self._classes[-1] and name == "forward":
            self._custom.add(self._qualify(name))
        if not self._functions:
            self._defined.add(name)
        no_grad = any(word in text for text in decorators for word in _NO_GRAD)
        self._functions.append(self._qualify(name) if self._classes and self._classes[-1] else name)
        self._no_grad += no_grad
        self._decorated_no_grad.append(no_grad)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()
        self._no_grad -= self._decorated_no_grad.pop()

    def _qualify(self, name: str) -> str:
        return f"<autograd.Function>.{name}"

    def visit_With(self, node: cst.With) -> None:
        self._no_grad += any(word in self.code_for(item.item) for item in node.items for word in _NO_GRAD)

    def leave_With(self, original_node: cst.With) -> None:
        self._no_grad -= any(word in self.code_for(item.item) for item in original_node.items for word in _NO_GRAD)

    def visit_Call(self, node: cst.Call) -> None:
        self._at_call[id(node)] = (tuple(self._functions), self._no_grad > 0)
        func = node.func
        first = node.args[0].value if node.args else None
        if isinstance(func, cst.Attribute) and func.attr.value in _REGISTRATIONS and isinstance(func.value, cst.Name):
            self._custom.add(func.value.value)  # f.defjvp(f_jvp): f's body is never differentiated
        leaf = leaf_name(func) or (leaf_name(func.func) if isinstance(func, cst.Call) else None)
        if leaf in _WRAPPERS and isinstance(first, cst.Name):
            self._custom.add(first.value)  # custom_jvp(f), custom_gradient(...)(f), lower_fun(f)
        if leaf in _LOOP_BODIES and len(node.args) > _LOOP_BODIES[leaf]:
            body = node.args[_LOOP_BODIES[leaf]].value
            if isinstance(body, cst.Name):
                self._custom.add(body.value)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._def_names:
            self._uses[node.value].add(self._functions[-1] if self._functions else None)

    # --- queries ---------------------------------------------------------------------------------
    def excluded(self, call: cst.Call) -> bool:
        functions, no_grad = self._at_call.get(id(call), ((), False))
        return no_grad or any(name in self._custom_closure() for name in functions)

    def _custom_closure(self) -> set[str]:
        """Custom-derivative functions, and the private helpers used only inside them."""
        if self._resolved is None:
            custom = set(self._custom)
            changed = True
            while changed:
                changed = False
                for name in self._defined - custom:
                    users = self._uses.get(name, set())
                    if name.startswith("_") and users and all(user in custom for user in users):
                        custom.add(name)
                        changed = True
            self._resolved = custom
        return self._resolved
