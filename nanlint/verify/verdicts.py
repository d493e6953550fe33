"""The words of a verification's outcome, light enough for the command line to import at start-up."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any, Optional

DEFAULT_TIMEOUT_S = 300


class Status(str, enum.Enum):
    VERIFIED = "verified"  # the function's gradient is finite after the fix, its values unchanged
    # The select is verified, but a value it reads comes from a call nanlint does not model: the
    # gradient of the whole function is not proven (the reason names the call).
    VERIFIED_SELECT_ONLY = "verified-select-only"
    FAILED = "failed"  # the fix changed a value, or left a NaN gradient
    UNVERIFIABLE = "unverifiable"  # nothing could be proven; the reason says why


VERIFIED, VERIFIED_SELECT_ONLY, FAILED, UNVERIFIABLE = Status.VERIFIED, Status.VERIFIED_SELECT_ONLY, Status.FAILED, Status.UNVERIFIABLE


@dataclass
class Verification:
    status: Status
    backend: Optional[str]
    leak_reproduced: bool = False
    reason: Optional[str] = None
    probes: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Strict JSON: a NaN or infinite number is written as the string "nan", "inf" or "-inf"."""
        return {
            "status": self.status.value,
            "backend": self.backend,
            "leak_reproduced": self.leak_reproduced,
            "reason": self.reason,
            "notes": self.notes,
            "probes": strict(self.probes),
        }


def strict(value: Any) -> Any:
    """`value` with every non-finite float written as a string, which every JSON parser accepts."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict(v) for v in value]
    return value
