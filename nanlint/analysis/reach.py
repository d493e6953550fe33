"""Whether a value computed in a function can ever receive a cotangent.

A select leaks only when reverse-mode autodiff sends a cotangent back into it. Some uses send none at
all (not a zero, which would still meet an unselected branch's infinite derivative, but nothing),
because they take the value out of the graph:
- a Python test (`if`, `while`, `assert`, the test of `a if t else b`) reads a concrete value;
- a comparison, `not`, a bitwise operator (on truth values and integers), an index;
- an integer cast, a barrier, a function or method with no gradient path (`argmax`, `isnan`,
  `.item()`, `.detach()`, JAX's `floor`: `values.cuts_gradient`), a Python builtin (`float(t)`);
- a variable assignment (`v.assign(x)`, `assign_add`, `assign_sub`): TensorFlow records no gradient
  through it (run, also under XLA);
- metadata (`x.shape`), the indices of a (values, indices) pair (`_, i = top_k(x, k)`), and a value
  never used.
Arithmetic, library calls, methods of the value, subscripts of it, tuples and locals (also through
`v += x` and `a, b = v`) carry the value on and are followed; a local to the reads its binding may
reach (after `h = h.detach()`, `h` is another value), or to all of them from a loop or a nested
function. Anything else (a return, a call of user code, a store into an attribute or a container, a
call made for its effect) may lead to a gradient.
torch's `round`, `floor` and `sign` are no cuts: they send a zero back.

The same walk answers whether the NaN a where puts in may reach the result at all
(`nan_may_reach_result`): a later select that leaves it out where it was put in, or a NaN mask
(`nan_to_num`), stops it there.
"""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from nanlint.analysis.names import Scope
from nanlint.analysis.syntax import argument_at
from nanlint.analysis.tree import children, walk
from nanlint.analysis.values import Env, call_parts, cuts_gradient, is_builtin, returns_indices_pair
from nanlint.catalog.tables import (
    FILL_ARGUMENT,
    INDICES_FIELD,
    METADATA_ATTRS,
    PYTHON_VALUE_BUILTINS,
    STARTS_REVERSE_MODE,
    VARIABLE_ASSIGNMENTS,
)
from nanlint.limits import MAX_WAY

_BITWISE = (cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift, cst.RightShift)
# Nodes whose value holds their operand's: the walk goes on from them.
_CARRY = (cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation, cst.Element, cst.Tuple, cst.List, cst.StarredElement)
_TESTS = (cst.If, cst.While, cst.Assert)
_LEAVES = (cst.Comparison, cst.ComparisonTarget, cst.Index, cst.Slice)
# Spellings of a name that store into it rather than read it.
_STORES = (cst.AssignTarget, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.AsName)
# Code that runs when it is called, not where it is written.
_RUNS_LATER = (cst.FunctionDef, cst.Lambda)


def may_receive_cotangent(
    node: cst.BaseExpression,
    scope: Scope,
    parent: dict[int, cst.CSTNode],
    env_at: Callable[[cst.CSTNode], Env],
    names_read: dict[int, dict[str, list[cst.Name]]],
) -> bool:
    """False when every use of `node`'s value, followed through the locals of its function, takes
    it out of the graph. `parent`: each node's parent; `env_at`: the environment seen from a node;
    `names_read`: a cache, per function, of the names it reads. Values outside a function (module
    code, a lambda's body) are not answered: True."""
    walk_ = _walk_in(scope, parent, env_at, names_read)
    return walk_ is None or walk_.flows(node, frozenset())


def nan_may_reach_result(
    node: cst.BaseExpression,
    scope: Scope,
    parent: dict[int, cst.CSTNode],
    env_at: Callable[[cst.CSTNode], Env],
    names_read: dict[int, dict[str, list[cst.Name]]],
    drops: Callable[[cst.Call, cst.BaseExpression], Optional[bool]],
) -> tuple[bool, bool]:
    """Whether the NaN a where puts in (`u = where(u_inf, nan, u)`) may reach the result, as
    `may_receive_cotangent` follows a value, except that a later select that leaves it out
    (`where(u_inf, 0.0, u * f)`) stops it; and whether a select that only may did (undecided).
    `drops(call, value)`: True when the call decidedly leaves out `value` (an argument, or a method's
    receiver), None when it may, False when it is no select or takes it."""
    walk_ = _walk_in(scope, parent, env_at, names_read, drops)
    if walk_ is None:
        return True, False
    return walk_.flows(node, frozenset()), walk_.undecided


def _walk_in(scope, parent, env_at, names_read, drops=None) -> Optional["_Walk"]:
    """A walk through the locals of the function `scope` is, or None outside a function."""
    if not isinstance(scope.node, cst.FunctionDef):
        return None
    function = scope.node

    def reads() -> dict[str, list[cst.Name]]:  # read only when a local is followed
        if id(function) not in names_read:
            names_read[id(function)] = _names_read(function, parent)
        return names_read[id(function)]

    return _Walk(parent, env_at, reads, drops)


def is_primal_in_jvp_rule(node: cst.BaseExpression, rule: cst.FunctionDef, env: Env) -> bool:
    """Whether `node`, in `rule(*nondiff_args, primals, tangents)`, a custom_jvp's rule, is computed
    from the primals alone. Reverse mode linearizes the rule: such a value is a constant of the
    linear map, only what the tangents flow through is transposed, and it receives no cotangent. (A
    second derivative differentiates it.)"""
    params = [*rule.params.posonly_params, *rule.params.params]
    if not params or rule.params.star_arg is not cst.MaybeSentinel.DEFAULT:
        return False
    return not _may_read(node, params[-1].name.value, env, 0)


def _may_read(node: cst.BaseExpression, parameter: str, env: Env, followed: int) -> bool:
    """Whether `node`'s value may be computed from `parameter`, through the locals it reads; True
    where a local's value is not known (a loop target, `v += x`, a nested `def`, which may read
    `parameter`) or the way is too long."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Attribute):
            stack.append(current.value)
        elif isinstance(current, cst.Arg):
            stack.append(current.value)
        elif isinstance(current, cst.Name):
            for binding in env.bindings(current):
                source = binding.value if binding.value is not None else binding.part_of
                if binding.parameter:
                    if binding.name == parameter:
                        return True
                elif binding.imported is not None or binding.module_definition:
                    continue
                elif source is None or binding.augmented is not None or followed >= MAX_WAY:
                    return True
                elif _may_read(source, parameter, env.at(binding.place), followed + 1):
                    return True
        else:
            stack.extend(children(current))
    return False


def _names_read(function: cst.FunctionDef, parent: dict[int, cst.CSTNode]) -> dict[str, list[cst.Name]]:
    """Every `Name` in the function that reads a name, by name."""
    reads: dict[str, list[cst.Name]] = {}
    for node in walk(function):
        if isinstance(node, cst.Name) and _reads(node, parent.get(id(node))) and not _unpacked_into(node, parent):
            reads.setdefault(node.value, []).append(node)
    return reads


class _Walk:
    def __init__(
        self,
        parent: dict[int, cst.CSTNode],
        env_at: Callable[[cst.CSTNode], Env],
        reads: Callable[[], dict[str, list[cst.Name]]],
        drops: Optional[Callable[[cst.Call, cst.BaseExpression], Optional[bool]]] = None,
    ) -> None:
        self.parent = parent
        self.env_at = env_at
        self.reads = reads
        self.drops = drops
        self.undecided = False  # a select that may have left the value out stopped the walk

    def flows(self, node: cst.CSTNode, followed: frozenset[int]) -> bool:
        current: cst.CSTNode | bool = node
        while not isinstance(current, bool):
            up = self.parent.get(id(current))
            current = True if up is None else self._step(current, up, followed)
        return current

    def _step(self, node: cst.CSTNode, up: cst.CSTNode, followed: frozenset[int]) -> cst.CSTNode | bool:
        """What `up` does with the value of its child `node`: True (it may reach a gradient), False
        (it leaves the graph there), or the node whose value carries it on (the walk goes on there)."""
        if isinstance(up, _TESTS) or (isinstance(up, cst.IfExp) and node is up.test):
            return False
        if isinstance(up, _LEAVES):
            return False
        if isinstance(up, cst.UnaryOperation) and isinstance(up.operator, (cst.Not, cst.BitInvert)):
            return False
        if isinstance(up, cst.BinaryOperation) and isinstance(up.operator, _BITWISE):
            return False
        if isinstance(up, cst.Element):
            paired = _paired_target(up, self.parent)
            if paired is not None:
                return self._assigned(*paired, followed)
        if isinstance(up, (*_CARRY, cst.IfExp)):
            return up
        if isinstance(up, cst.Subscript):
            return up if node is up.value else False
        if isinstance(up, cst.Attribute) and node is up.value:
            return self._attribute(up)
        if isinstance(up, cst.Arg) and node is up.value:
            return self._argument(up)
        if isinstance(up, cst.Expr):
            return isinstance(node, cst.Call)  # a call made for its effect (`loss.backward()`) may differentiate
        if isinstance(up, (cst.Assign, cst.AnnAssign)) and node is up.value:
            return self._assigned(up, None, followed)
        if isinstance(up, cst.AugAssign):
            return self._assigned(up, None, followed)  # `v += x`: both `x` and the old `v` go on in `v`
        return True

    def _attribute(self, up: cst.Attribute) -> cst.CSTNode | bool:
        call = self.parent.get(id(up))
        if not (isinstance(call, cst.Call) and call.func is up):
            if up.attr.value == INDICES_FIELD and isinstance(up.value, cst.Call) and returns_indices_pair(up.value, self.env_at(up.value)):
                return False  # `top_k(x, k).indices`
            return False if up.attr.value in METADATA_ATTRS else up  # `x.shape`; `x.T` carries it
        if self._dropped(call, up.value):
            return False  # `u.nan_to_num()`
        method = up.attr.value
        if method in STARTS_REVERSE_MODE or method in VARIABLE_ASSIGNMENTS:
            return True
        if cuts_gradient(call, method, None, self.env_at(call)):
            return False  # x.item(), x.detach(), x.long()
        return call  # x.sum(), x.reshape(...): a method of the value carries it

    def _dropped(self, call: cst.Call, value: cst.BaseExpression) -> bool:
        """`drops`, when given, says the call leaves `value` out (or may: undecided)."""
        dropped = self.drops(call, value) if self.drops is not None else False
        self.undecided = self.undecided or dropped is None
        return dropped is not False

    def _argument(self, arg: cst.Arg) -> cst.CSTNode | bool:
        call = self.parent.get(id(arg))
        if not isinstance(call, cst.Call):
            return True
        if self._dropped(call, arg.value):
            return False
        env = self.env_at(call)
        func = call.func
        if is_builtin(func, PYTHON_VALUE_BUILTINS, env):
            return False  # float(t), len(t)
        qualified, _, leaf, _, _ = call_parts(call, env)
        if leaf in STARTS_REVERSE_MODE:
            return True
        if leaf in VARIABLE_ASSIGNMENTS and isinstance(func, cst.Attribute):
            return False  # v.assign(x), tf.compat.v1.assign(v, x), self.assign_sub(v, x)
        if qualified is None:
            return True  # user code, or a method of another object: it may keep the value
        if leaf in FILL_ARGUMENT:
            return call if arg.value is argument_at(call, FILL_ARGUMENT[leaf]) else False
        if cuts_gradient(call, leaf, qualified, env):
            return False
        return call  # a library function's result carries its arguments

    def _assigned(
        self, statement: cst.Assign | cst.AnnAssign | cst.AugAssign, paired: Optional[cst.BaseExpression], followed: frozenset[int]
    ) -> bool:
        """`name = value` (or `name += value`): the value may reach a gradient if a read of `name`
        that this binding may reach may. `followed`: the bindings on the way (by node id); `paired`:
        the one target an element of a literal tuple value is stored into (`a, b = v, w`)."""
        targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
        if paired is not None:
            targets = [paired]
        elif len(targets) == 1 and isinstance(targets[0], (cst.Tuple, cst.List)):
            targets = _unpacked_carriers(targets[0], statement.value, self.env_at)
            if targets is None:
                return True
        if not all(isinstance(t, cst.Name) for t in targets):
            return True  # `self.x = v`, `a[i] = v`, `a, *b = v`: kept where the walk does not follow
        if id(statement) in followed:
            return False  # a binding already followed (`x = x * 2` in a loop): its other reads answer
        if len(followed) >= MAX_WAY:
            return True
        followed = followed | {id(statement)}
        reads = self.reads()
        names = {t.value for t in targets}
        return any(self.flows(use, followed) for name in names for use in reads.get(name, ()) if self._sees(statement, use))

    def _sees(self, statement: cst.CSTNode, read: cst.Name) -> bool:
        """Whether the read may see the statement's binding: the reads that binding reaches (a
        name is often bound again, `h = h.detach()`, `u = where(u_inf, nan, u)`), or all of them
        where the statement sits in a loop, or where the read sits in a nested function or lambda,
        which runs when it is called and may see any binding. Only a plain assignment is told apart."""
        if not isinstance(statement, cst.Assign):
            return True
        up = self.parent.get(id(statement))
        while up is not None and not isinstance(up, _RUNS_LATER):
            if isinstance(up, (cst.For, cst.While)):
                return True
            up = self.parent.get(id(up))
        if _enclosing_function(read, self.parent) is not up:
            return True
        value = statement.value
        return any(binding.value is value or binding.part_of is value or _element_of(binding.value, value) for binding in self.env_at(read).bindings(read))


def _enclosing_function(node: cst.CSTNode, parent: dict[int, cst.CSTNode]) -> Optional[cst.CSTNode]:
    """The innermost function or lambda around `node`."""
    up = parent.get(id(node))
    while up is not None and not isinstance(up, _RUNS_LATER):
        up = parent.get(id(up))
    return up


def _paired_target(element: cst.Element, parent: dict[int, cst.CSTNode]) -> Optional[tuple[cst.Assign, cst.BaseExpression]]:
    """In `a, b = v, w`, the assignment and the target the element `w` is stored into (`b`); None
    unless the element is one of a literal tuple or list that is a plain assignment's whole value,
    unpacked into as many targets, none starred."""
    literal = parent.get(id(element))
    statement = parent.get(id(literal))
    if not (isinstance(literal, (cst.Tuple, cst.List)) and isinstance(statement, cst.Assign) and statement.value is literal):
        return None
    if len(statement.targets) != 1 or not isinstance(statement.targets[0].target, (cst.Tuple, cst.List)):
        return None
    targets = statement.targets[0].target.elements
    if len(targets) != len(literal.elements) or any(isinstance(e, cst.StarredElement) for e in (*targets, *literal.elements)):
        return None
    return statement, next(target.value for target, item in zip(targets, literal.elements) if item is element)


def _unpacked_carriers(target: cst.Tuple | cst.List, value: cst.BaseExpression, env_at) -> Optional[list[cst.BaseExpression]]:
    """The targets of `a, b = value` that may hold the value followed: every one, but the indices of
    a (values, indices) pair (`_, i = top_k(x, k)`); None for a starred one (`a, *b = v`)."""
    elements = [element.value for element in target.elements]
    if any(isinstance(element, cst.StarredElement) for element in target.elements):
        return None
    if len(elements) == 2 and isinstance(value, cst.Call) and returns_indices_pair(value, env_at(value)):
        return elements[:1]
    return elements


def _element_of(part: Optional[cst.BaseExpression], value: cst.BaseExpression) -> bool:
    """`part` is an element of a literal tuple `value` (`a, b = x, 2 * x` binds `a` to `x`)."""
    return part is not None and isinstance(value, (cst.Tuple, cst.List)) and any(element.value is part for element in value.elements)


def _unpacked_into(name: cst.Name, parent: dict[int, cst.CSTNode]) -> bool:
    """`name` is a part of a tuple or list that is stored into (`_, i = top_k(x, k)`)."""
    node: cst.CSTNode = name
    up = parent.get(id(node))
    while isinstance(up, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
        node, up = up, parent.get(id(up))
    return node is not name and isinstance(up, _STORES) and node is getattr(up, "target", None)


def _reads(name: cst.Name, up: Optional[cst.CSTNode]) -> bool:
    """Whether `name` is read there: not a store, an attribute (`a.name`), a keyword (`f(name=...)`),
    a parameter or a def's name."""
    if isinstance(up, _STORES):
        return name is not getattr(up, "target", getattr(up, "name", None))
    if isinstance(up, cst.Attribute):
        return name is not up.attr
    if isinstance(up, cst.Arg):
        return name is not up.keyword
    if isinstance(up, (cst.Param, cst.FunctionDef, cst.ClassDef)):
        return name is not up.name
    return True
