"""What a method's `self.attr` can hold: the values its class stores into it.

`self.radius = radius` in `__init__(self, radius: float)` makes `self.radius`, read in `forward`,
one Python number for every element, as a `radius: float` parameter is (values.is_configuration).
That holds only when every store into the attribute in the class is known: plain assignments in
the class's own methods (`self.x = v`, `self.x: float = v`). An augmented store (`self.x += v`), a
store through unpacking (`self.a, self.b = f()`) or from a nested function, and a class without any
store (the base class may store it, in another file) leave it unknown. A subclass in another module
may store something else; nanlint reads one file.

A class's methods may be read as separate units (a member under the prefilter's stand-in class):
they are told apart by the offset of the class they belong to (`Unit.owner`).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from nanlint.analysis.names import Place, Scope, ScopeIndex, leaf_name
from nanlint.analysis.syntax import argument_at, is_string, string_value
from nanlint.analysis.tree import walk
from nanlint.catalog.tables import ATTRIBUTE_REGISTRATIONS, is_in_place

# Methods whose first parameter is no instance: a static method's is an argument, a class
# method's the class.
_NOT_BOUND = frozenset({"staticmethod", "classmethod"})
# (value, the method's scope, the place of the store) for each store into one attribute.
Store = tuple[cst.BaseExpression, Scope, Place]


class AttributeStores:
    """The stores into each attribute of each class of the kept code, collected on first use."""

    def __init__(self, index: ScopeIndex) -> None:
        self.index = index
        self._methods: Optional[dict[object, list[Scope]]] = None
        self._stores: dict[tuple[object, str], Optional[list[Store]]] = {}

    def stores(self, key: tuple[object, str]) -> Optional[list[Store]]:
        """The stores into the attribute `key` names (`AttributeStores.key`), every one of them;
        None when a store is not known."""
        if key not in self._stores:
            self._stores[key] = self._collect(key)
        return self._stores[key]

    def key(self, node: cst.BaseExpression, scope: Scope) -> Optional[tuple[object, str]]:
        """Which class's attribute `node` is, read in `scope`: None when it is no attribute of a
        method's receiver."""
        if not isinstance(node, cst.Attribute) or not isinstance(node.value, cst.Name):
            return None
        method = next((s for s in scope.lookup_chain() if node.value.value in s.bindings), None)
        if method is None or _receiver(method) != node.value.value:
            return None
        return (self._class_key(method.parent), node.attr.value)

    def _class_key(self, class_scope: Scope) -> object:
        node = class_scope.node
        root = self.index.parent.get(id(node))
        tree = self.index.tree_of.get(id(root)) if root is not None else None
        if tree is not None and tree.unit.member:
            return ("member", tree.unit.owner)  # a stand-in class: one per member unit
        return id(node)

    def _collect(self, key: tuple[object, str]) -> Optional[list[Store]]:
        class_key, attr = key
        if self._methods is None:
            self._methods = {}
            for scope in self.index.scope_of.values():
                if isinstance(scope.node, cst.FunctionDef) and scope.parent is not None and scope.parent.is_class:
                    self._methods.setdefault(self._class_key(scope.parent), []).append(scope)
        stores: list[Store] = []
        for method in self._methods.get(class_key, ()):
            receiver = _receiver(method)
            if receiver is None:
                continue
            for node in walk(method.node.body):
                stores_there, value = _store(node, receiver, attr)
                if not stores_there:
                    continue
                if value is None or self.index.scope_at(node) is not method:
                    return None  # `self.x += v`, `self.a, self.b = v`, or from a nested function
                stores.append((value, method, self.index.place[id(node)]))
        return stores or None


def _receiver(scope: Scope) -> Optional[str]:
    """The name of a method's receiver (`self`), bound once: not a static or class method's."""
    if not isinstance(scope.node, cst.FunctionDef) or scope.parent is None or not scope.parent.is_class:
        return None
    if any(leaf_name(d.decorator) in _NOT_BOUND for d in scope.node.decorators):
        return None
    found = [bs[0].name for bs in scope.bindings.values() if bs[0].receiver]
    return found[0] if found and len(scope.bindings[found[0]]) == 1 else None


def _store(node: cst.CSTNode, receiver: str, attr: str) -> tuple[bool, Optional[cst.BaseExpression]]:
    """Whether `node` stores into `receiver.attr`, and the value it stores there, when known."""
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
        if not any(_holds(t, receiver, attr) for t in targets):
            return False, None
        return True, node.value if all(_names(t, receiver, attr) or not _holds(t, receiver, attr) for t in targets) else None
    if isinstance(node, cst.AnnAssign) and _names(node.target, receiver, attr):
        return node.value is not None, node.value  # `self.x: float` alone stores nothing
    if isinstance(node, cst.AugAssign) and _names(node.target, receiver, attr):
        return True, None
    if isinstance(node, (cst.For, cst.WithItem, cst.NamedExpr)):
        target = node.asname.name if isinstance(node, cst.WithItem) and node.asname is not None else getattr(node, "target", None)
        return target is not None and _holds(target, receiver, attr), None
    if isinstance(node, cst.Call):
        return _registered(node, receiver, attr)
    return False, None


def _registered(call: cst.Call, receiver: str, attr: str) -> tuple[bool, Optional[cst.BaseExpression]]:
    """`self.register_buffer("attr", v)` and `setattr(self, "attr", v)` store `v`. An in-place
    method (`self.attr.mul_(m)`, `.requires_grad_()`) changes what it holds, and `setattr(self,
    name, v)` may store into any attribute: stores of a value not known."""
    func = call.func
    if isinstance(func, cst.Attribute) and _names(func.value, receiver, attr) and is_in_place(func.attr.value):
        return True, None
    if isinstance(func, cst.Attribute) and _is_name(func.value, receiver):
        spec = ATTRIBUTE_REGISTRATIONS.get(func.attr.value)
        name = argument_at(call, spec[0]) if spec is not None else None
        if name is None:
            return False, None
        if not is_string(name):
            return True, None  # a name computed at run time: any attribute
        return string_value(name) == attr, argument_at(call, spec[1])
    if isinstance(func, cst.Name) and func.value == "setattr" and len(call.args) == 3 and _is_name(call.args[0].value, receiver):
        name = call.args[1].value
        if not is_string(name):
            return True, None
        return string_value(name) == attr, call.args[2].value
    return False, None


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _names(target: cst.BaseExpression, receiver: str, attr: str) -> bool:
    return isinstance(target, cst.Attribute) and target.attr.value == attr and _is_name(target.value, receiver)


def _holds(target: cst.CSTNode, receiver: str, attr: str) -> bool:
    """Whether a target stores into `receiver.attr` anywhere in it (`self.a, self.b = ...`)."""
    return any(_names(node, receiver, attr) for node in walk(target) if isinstance(node, cst.Attribute))
