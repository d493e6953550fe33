"""How far the analysis follows an expression; the fast screen stops where the detector does."""

MAX_DEPTH = 4  # nesting the value questions (constant? data? range?) look into
MAX_INDIRECTION = 3  # locals followed from a branch to the op that defines them: `s = sqrt(x)`
MAX_WAY = 8  # locals followed back to the computation that makes a value (NAN201, the verification harness)
