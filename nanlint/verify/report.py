"""The verification table a person reads: per finding, the probes where something happens."""

from __future__ import annotations

import io

from rich import box
from rich.console import Console
from rich.table import Table

from nanlint.diagnostics import Diagnostic
from nanlint.verify.harness import finite
from nanlint.verify.verdicts import Status, Verification

MAX_ROWS = 8
STATUS_STYLE = {Status.VERIFIED: "bold green", Status.VERIFIED_SELECT_ONLY: "green", Status.FAILED: "bold red"}


def render(pairs: list[tuple[Diagnostic, Verification]], *, color: bool, width: int = 100) -> str:
    out = io.StringIO()
    console = Console(file=out, force_terminal=color, no_color=not color, width=width, highlight=False, emoji=False)
    for diagnostic, verification in pairs:
        cell = "" if diagnostic.cell is None else f"cell {diagnostic.cell}:"
        where = f"{diagnostic.filename}:{cell}{diagnostic.location.row}:{diagnostic.location.column}"
        console.print(f"{where}: {diagnostic.code} ", end="")
        console.print(verification.status.value, style=STATUS_STYLE.get(verification.status, "bold yellow"), end="")
        backend = f" ({verification.backend}, XLA)" if verification.backend in ("jax", "tensorflow") else (f" ({verification.backend})" if verification.backend else "")
        console.print(backend + (f": {verification.reason}" if verification.reason else ""))
        if verification.probes:
            console.print(_table(verification))
        for note in verification.notes:
            console.print(f"note: {note}")
        console.print()
    return out.getvalue()


def _table(verification: Verification) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for column in ("probe", "value", "grad before", "grad after", ""):
        table.add_column(column, justify="right" if column not in ("probe", "") else "left")
    for probe in _interesting(verification.probes):
        before = ", ".join(_num(v) for v in probe["grad_before"].values())
        after = ", ".join(_num(v) for v in probe["grad_after"].values())
        leaked = any(not finite(v) for v in probe["grad_before"].values())
        fixed = all(finite(v) for v in probe["grad_after"].values())
        verdict = "leak fixed" if leaked and fixed else ("selected branch singular" if not probe["selected_differentiable"] else probe.get("note") or "")
        point = ", ".join(f"{k}={_num(v)}" for k, v in probe["point"].items())
        table.add_row(point, _num(probe["value"]), before, after, verdict)
    return table


def _interesting(probes: list[dict]) -> list[dict]:
    """The probes where the gradient changed first, then regular ones, at most MAX_ROWS."""
    changed = [p for p in probes if p["grad_before"] != p["grad_after"] or any(not finite(v) for v in p["grad_before"].values())]
    rest = [p for p in probes if p not in changed]
    return (changed + rest)[:MAX_ROWS]


def _num(value) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return f"{value:.4g}"
    return str(value)
