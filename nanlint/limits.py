"""How far the analysis follows an expression; the fast screen stops where the detector does."""

MAX_DEPTH = 6  # bindings the value questions (constant? data? range?) follow
# A level of an expression counts 1 and a binding followed counts this much, in the value questions
# and the guard search: six bindings and a deep polynomial each fit, and no question runs into
# Python's recursion limit on a long expression.
BINDING_COST = 25
MAX_INDIRECTION = 3  # locals followed from a branch to the op that defines them: `s = sqrt(x)`
# Assignments before a helper's `return`: the prefilter keeps such a helper, and the detector reads
# its call as the expression it returns (prefilter/helpers.py, analysis/inline.py).
MAX_HELPER_STEPS = 12
# Nodes a helper's call may stand for once its locals are written out (each read is a copy).
MAX_INLINED_NODES = 2000
# Locals followed back to the computation that makes a value (NAN201, the verification harness),
# and to see that every branch of a select evaluates an op (detector's `_Evaluated`).
MAX_WAY = 8
# Locals a condition is followed through (`ok = small & finite`, `small = x < eps`).
CONDITION_HOPS = 2
