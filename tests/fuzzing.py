"""The fuzz suite's inputs and properties (issue #16); tests/test_fuzz.py runs them.

Inputs are bytes: valid Python from the grammar (hypothesmith) with the frameworks imported, or a
seed file that calls `where` (the fixtures; in the long profile also the benchmark corpus, when it
is on this machine), then mutated a few times: lines deleted or duplicated, leaking selects inserted
at a statement's indentation, line endings switched, comments added, and newlines, comments, line
continuations and parentheses put inside calls. Last, the text is encoded as UTF-8, UTF-8 with a BOM,
or latin-1 with a coding cookie.

Each input is checked with both paths (sliced and whole-file) and fixed with unsafe fixes, in this
process (`in_process`), and in batches through the real command (`through_the_command`). Python's
own parser is the oracle for "parses".
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
import warnings
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Callable, Optional

import hypothesmith
from hypothesis import strategies as st

from nanlint.check import Checker
from nanlint.config.settings import Settings
from nanlint.fix.apply import fix_source

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path.home() / ".cache" / "nanlint-bench" / "src"
BOM = b"\xef\xbb\xbf"
BREAK = re.compile(r"\r\n|\r|\n")
LONE_CR = re.compile(rb"\r(?!\n)")
# The default rules, as `nanlint check --fix --unsafe-fixes` runs them.
SLICED = Checker(Settings(), digests=False)
WHOLE = Checker(Settings(parse_whole_files=True), digests=False)

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nimport tensorflow as tf\nimport torch\n"
LEAKS = [
    "y = jnp.where(x > 0, jnp.sqrt(x), 0.0)",
    "y = jnp.where(x > 0.0, jnp.log(x), -1.0)",
    "y = jnp.where(x != 0, 1.0 / x, 0.0)",
    "y = jnp.where(x >= 0, jnp.sqrt(x), 0.0)",
    "y = jnp.where(x < 10, jnp.exp(x), 0.0)",
    "y = jnp.where(jax.random.uniform(key) > 0.5, jnp.sqrt(x), 0.0)",
    "s = jnp.sqrt(x)\ny = jnp.where(x > 0, s, 0.0)",
    "y = lax.select(x > 0, jnp.sqrt(x), jnp.zeros_like(x))",
    "y = tf.where(x > 0, tf.math.log(x), tf.zeros_like(x))",
    "y = torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))",
]
COMMENTS = ["  # a comment", "  # noqa: NAN001", "  # nanlint: ignore[NAN001]", "# nanlint: file-ignore[NAN004]", "  # noqa"]
INSIDE_CALLS = ["\n", " # inside\n", " \\\n", "\n\t  "]

Draw = Callable  # hypothesis's `draw`
GRAMMAR = hypothesmith.from_grammar()  # built once: each build compiles a parser for Python's grammar


# --- seeds ------------------------------------------------------------------------------------------
def seeds(corpus: bool) -> list[str]:
    """The fixtures that call `where` and, with `corpus`, the benchmark corpus's files that do (small
    ones, so that a long run stays long for its number of inputs, not for its file sizes)."""
    paths = sorted((ROOT / "fixtures").rglob("*.py"))
    if corpus and CORPUS.is_dir():
        paths += sorted(p for p in CORPUS.rglob("*.py") if p.stat().st_size < 16_000)
    texts = [p.read_bytes().decode("utf-8-sig", "replace") for p in paths]
    return [t for t in texts if "where(" in t]


# --- inputs -----------------------------------------------------------------------------------------
def sources(seed_texts: list[str]) -> st.SearchStrategy[bytes]:
    @st.composite
    def source(draw: Draw) -> bytes:  # a closure: hypothesis shows a strategy's arguments, megabytes of seeds
        if draw(st.integers(0, 3)) == 0:
            text = with_header(draw(GRAMMAR))
        else:
            text = draw(st.sampled_from(seed_texts))
        for _ in range(draw(st.integers(0, 5))):
            text = draw(st.sampled_from(MUTATIONS))(text, draw)
        return encode(text, draw)

    return source()


def with_header(text: str) -> str:
    """The frameworks imported at the top (after any `from __future__` import), so selects resolve."""
    tree = parse(text)
    futures = [n for n in (tree.body if tree else []) if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    lines = split(text)
    at = futures[-1].end_lineno if futures else 0
    return "".join(lines[:at]) + HEADER + "".join(lines[at:])


def encode(text: str, draw: Draw) -> bytes:
    form = draw(st.sampled_from(["utf-8", "bom", "latin-1"]))
    if form == "bom":
        return BOM + text.encode("utf-8", "surrogatepass")
    if form == "latin-1":
        try:
            return b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + text.encode("latin-1")
        except UnicodeEncodeError:
            pass
    return text.encode("utf-8", "surrogatepass")


def split(text: str) -> list[str]:
    """Lines with their endings, broken where Python breaks them."""
    out, start = [], 0
    for match in BREAK.finditer(text):
        out.append(text[start : match.end()])
        start = match.end()
    return out + ([text[start:]] if start < len(text) else [])


def ending(line: str) -> str:
    match = BREAK.search(line)
    return match.group() if match else "\n"


def delete_line(text: str, draw: Draw) -> str:
    lines = split(text)
    if lines:
        del lines[draw(st.integers(0, len(lines) - 1))]
    return "".join(lines)


def duplicate_line(text: str, draw: Draw) -> str:
    lines = split(text)
    if lines:
        i = draw(st.integers(0, len(lines) - 1))
        lines.insert(i, lines[i] if BREAK.search(lines[i]) else lines[i] + "\n")
    return "".join(lines)


def insert_leak(text: str, draw: Draw) -> str:
    """A leaking select before a statement, at its indentation (before any line when nothing parses)."""
    lines = split(text) or [""]
    places = statement_lines(text) or list(range(len(lines)))
    i = draw(st.sampled_from(places))
    indent = re.match(r"[ \t]*", lines[i]).group()
    newline = ending(lines[i])
    snippet = "".join(indent + line + newline for line in draw(st.sampled_from(LEAKS)).split("\n"))
    return "".join(lines[:i]) + snippet + "".join(lines[i:])


def switch_line_endings(text: str, draw: Draw) -> str:
    kind = draw(st.sampled_from(["\n", "\r\n", "\r", "one line"]))
    if kind != "one line":
        return BREAK.sub(kind, text)
    lines = split(text)
    if lines:
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] = BREAK.sub(draw(st.sampled_from(["\n", "\r\n", "\r"])), lines[i])
    return "".join(lines)


def add_comment(text: str, draw: Draw) -> str:
    lines = split(text)
    if not lines:
        return text
    i = draw(st.integers(0, len(lines) - 1))
    body = BREAK.sub("", lines[i])
    lines[i] = body + draw(st.sampled_from(COMMENTS)) + lines[i][len(body) :]
    return "".join(lines)


def inside_a_call(text: str, draw: Draw) -> str:
    """A newline, comment or line continuation after a call's `(` or an argument's `,`; or an
    argument wrapped in parentheses."""
    spots = call_spots(text)
    if not spots:
        return text
    start, end = draw(st.sampled_from(spots))
    if end is not None and draw(st.booleans()):
        return text[:start] + "(" + text[start:end] + ")" + text[end:]
    at = end if end is not None else start
    # After the argument: past its `,` when there is one (and not past the call's `)`).
    comma = re.match(r"\s*,", text[at:])
    at = at + comma.end() if comma else at
    return text[:at] + draw(st.sampled_from(INSIDE_CALLS)) + text[at:]


MUTATIONS = [delete_line, duplicate_line, insert_leak, insert_leak, switch_line_endings, add_comment, inside_a_call, inside_a_call]


# --- where things are, from Python's own parser ------------------------------------------------------
def parse(text: str) -> Optional[ast.Module]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def parses(raw: bytes) -> bool:
    """Whether Python's parser takes these bytes (it reads the BOM and coding cookie itself)."""
    return _python_takes(raw, ast.PyCF_ONLY_AST)


def compiles(raw: bytes) -> bool:
    """Whether Python compiles these bytes: it also rejects some code its parser takes (a duplicate
    argument, `return` outside a function), and the fixer will not write such a file."""
    return _python_takes(raw, 0)


def _python_takes(raw: bytes, flags: int) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(raw, "m.py", "exec", flags, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def statement_lines(text: str) -> list[int]:
    """Indexes of the lines on which a statement (or its first decorator) begins, alone at its start."""
    tree = parse(text)
    if tree is None:
        return []
    lines = split(text)
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        decorators = getattr(node, "decorator_list", [])
        row, column = (decorators[0].lineno, decorators[0].col_offset - 1) if decorators else (node.lineno, node.col_offset)
        line = lines[row - 1]
        if not line[: _column(line, column)].strip():  # not after a `;` or a compound statement's colon
            out.add(row - 1)
    return sorted(out)


def call_spots(text: str) -> list[tuple[int, Optional[int]]]:
    """(offset just after a call's `(`, None) and (start, end) of each of its arguments."""
    tree = parse(text)
    if tree is None:
        return []
    lines = split(text)
    starts = [0, *accumulate(len(line) for line in lines)]

    def offset(row: int, column: int) -> int:
        return starts[row - 1] + _column(lines[row - 1], column)

    out: list[tuple[int, Optional[int]]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        after_func = offset(node.func.end_lineno, node.func.end_col_offset)
        paren = re.match(r"\s*\(", text[after_func:])
        if paren:
            out.append((after_func + paren.end(), None))
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if not isinstance(arg, ast.Starred):
                out.append((offset(arg.lineno, arg.col_offset), offset(arg.end_lineno, arg.end_col_offset)))
    return out


def _column(line: str, utf8_column: int) -> int:
    """ast's columns count UTF-8 bytes; this is the same place in characters."""
    return len(line.encode("utf-8", "surrogatepass")[:utf8_column].decode("utf-8", "ignore"))


# --- properties -------------------------------------------------------------------------------------
@dataclass
class Failure:
    prop: str
    detail: str
    raw: bytes


def in_process(raw: bytes) -> list[Failure]:
    """Check `raw` both ways, fix it with unsafe fixes, fix the result again; what went wrong."""
    try:
        return _in_process(raw)
    except Exception as error:  # a crash is a finding of the fuzzer, never a crash of the suite
        return [Failure("no crash", _last_frames(error), raw)]


def _in_process(raw: bytes) -> list[Failure]:
    failures: list[Failure] = []

    def fail(prop: str, detail: str = "") -> None:
        failures.append(Failure(prop, detail, raw))

    sliced, whole = SLICED.check_bytes(raw, "m.py"), WHOLE.check_bytes(raw, "m.py")
    valid, compiled = parses(raw), compiles(raw)
    if valid and sliced.error is None and whole.error is None and findings(sliced) != findings(whole):
        fail("same findings sliced and whole", f"sliced {findings(sliced)} != whole {findings(whole)}")
    if sliced.source is None:
        return failures
    if not valid and any(d.fix is not None and d.fix.applies(True) for d in sliced.diagnostics):
        fail("no fix offered in a file that does not parse", str(findings(sliced)))
    outcome = fix_source(SLICED, sliced, unsafe_fixes=True)
    if compiled and outcome.dropped:
        fail("no fix dropped on a file that compiles", "; ".join(outcome.dropped))
    fixed = outcome.source.encode(sliced.encoding)
    if not outcome.changed and fixed != raw:
        fail("byte-identical without a fix", "the text changed though no fix was applied")
    failures += [Failure(prop, detail, raw) for prop, detail in kept(raw, fixed)]
    if outcome.changed:
        again = fix_source(SLICED, SLICED.check_source(outcome.source, "m.py"), unsafe_fixes=True)
        if again.changed:
            fail("a second fix changes nothing", f"applied {dict(again.applied)}")
    return failures


def kept(before: bytes, after: bytes) -> list[tuple[str, str]]:
    """What a fix must keep: that the file parses and compiles, its BOM, its encoding (`parses`
    decodes as Python does) and its kinds of line ending."""
    if before == after:
        return []
    out = []
    if parses(before) and not parses(after):
        out.append(("parses after the fix", "the fixed file does not parse"))
    if compiles(before) and not compiles(after):
        out.append(("compiles after the fix", "the fixed file does not compile"))
    if before.startswith(BOM) != after.startswith(BOM):
        out.append(("BOM kept", "the BOM was added or removed"))
    old, new = _endings(before), _endings(after)
    if old and not new <= old:
        out.append(("line endings kept", f"{sorted(old)} became {sorted(new)}"))
    return out


def _endings(raw: bytes) -> set[str]:
    kinds = {"CRLF": raw.count(b"\r\n")}
    kinds["CR"] = len(LONE_CR.findall(raw))
    kinds["LF"] = raw.count(b"\n") - kinds["CRLF"]
    return {kind for kind, count in kinds.items() if count}


def findings(result) -> list[tuple]:
    """What a path reports, to compare the two: NAN900 aside (the slice reads less of the file)."""
    return sorted(
        (d.code, d.location, d.end_location, d.message, d.fix.applicability.value if d.fix else None, [(e.content, e.location, e.end_location) for e in (d.fix.edits if d.fix else [])])
        for d in result.diagnostics
        if d.code != "NAN900"
    )


def through_the_command(raws: list[bytes]) -> list[Failure]:
    """Write the inputs as files, run `nanlint check`, then `--fix --unsafe-fixes` twice, on all of
    them at once; when the command crashes, again on each input alone, to tell which one did it."""
    failures = _through_the_command(raws)
    if len(raws) > 1 and any(f.prop == "no crash" for f in failures):
        return [f for raw in raws for f in _through_the_command([raw])]
    return failures


def _through_the_command(raws: list[bytes]) -> list[Failure]:
    with tempfile.TemporaryDirectory(prefix="nanlint-fuzz-") as directory:
        root = Path(directory)
        names = [f"m{i:03}.py" for i in range(len(raws))]
        for name, raw in zip(names, raws):
            (root / name).write_bytes(raw)
        crashed = raws[0] if len(raws) == 1 else b""
        failures, report = _command(root, crashed, "--output-format", "json")
        if failures:
            return failures
        fixable = {Path(d["filename"]).name for d in json.loads(report or "[]") if d["fix"] and d["fix"]["applicability"] != "display-only"}
        failures += _command(root, crashed, "--fix", "--unsafe-fixes")[0]
        fixed = [(root / name).read_bytes() for name in names]
        failures += _command(root, crashed, "--fix", "--unsafe-fixes")[0]
        for name, raw, after in zip(names, raws, fixed):
            if name not in fixable and after != raw:
                failures.append(Failure("byte-identical without a fix", f"{name} changed", raw))
            failures += [Failure(prop, f"{name}: {detail}", raw) for prop, detail in kept(raw, after)]
            if (root / name).read_bytes() != after:
                failures.append(Failure("a second fix changes nothing", f"{name} changed again", raw))
    return failures


def _command(root: Path, crashed: bytes, *args: str) -> tuple[list[Failure], str]:
    """Run `nanlint check ARGS .` in `root`: a crash (a traceback, an internal error, a line on stderr
    that is not one of nanlint's, an exit code other than 0, 1, 2) is reported with `crashed`."""
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("NANLINT_DEBUG", None)
    proc = subprocess.run(
        [sys.executable, "-m", "nanlint", "check", "--no-cache", *args, "."], cwd=root, capture_output=True, env=env, timeout=600
    )
    stdout, stderr = proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
    broken = [line for line in stderr.splitlines() if not line.startswith("nanlint: ") or "internal error" in line]
    if proc.returncode not in (0, 1, 2) or broken or "Traceback" in stdout + stderr:
        return [Failure("no crash", f"nanlint {' '.join(args)}: exit {proc.returncode}: {stderr[-2000:]}", crashed)], stdout
    return [], stdout


def _last_frames(error: BaseException) -> str:
    frames = traceback.format_exception(type(error), error, error.__traceback__)
    return "".join(frames[-3:]).strip()
