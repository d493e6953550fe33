"""IPython syntax in a code cell, blanked so that the rest of the cell reads as Python.

What IPython would turn into a call at the start of a logical line is replaced, line for line, by
`pass` at its indentation (a magic may be the only statement of a block): line magics and shell
escapes (`%timeit f(x)`, `!pip install jax`, `files = !ls`, `x = %time f()`), help (`?obj`,
`obj??`), the autocall escapes (`/f x`, `,f a b`, `;f a`), and automagics (`pip install jax`: a
magic's name, then what cannot be Python). Continuation lines of a magic are emptied. A cell magic
whose body is Python (`%%time`, `%%capture`, ...) loses its first line; any other (`%%bash`,
`%%writefile`) makes the whole cell blank. Rows and the columns of every other line stay where they
were, so findings and fixes need no translation within a cell.
"""

from __future__ import annotations

import re
from typing import Optional

from nanlint.source_lines import LINE_BREAK

# Cell magics whose body is Python run in the kernel (ruff's list).
TRANSPARENT_CELL_MAGICS = frozenset({"capture", "debug", "prun", "pypy", "python", "python3", "time", "timeit"})
# IPython's line magics and default shell aliases: typed without `%` when automagic is on (the default).
AUTOMAGICS = frozenset(
    """alias alias_magic autoawait autocall automagic bookmark cat cd clear colors conda config cp dhist
    dirs doctest_mode ed edit env gui hist history killbgscripts ldir less lf lk ll load load_ext loadpy
    logoff logon logstart logstate logstop ls lsmagic lx macro magic man matplotlib mkdir more mv notebook
    page pastebin pdb pdef pdoc pfile pinfo pinfo2 pip popd pprint precision prun psearch psource pushd pwd
    pycat pylab quickref recall rehashx reload_ext rep rerun reset reset_selective rm rmdir run save sc
    set_env store sx system tb time timeit unalias unload_ext who who_ls whos xdel xmode""".split()
)
_ESCAPES = ("%", "!", "?", "/", ",", ";")
_MAGIC_ASSIGN = re.compile(r"[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[%!]")
# A name, a space, then neither an assignment nor a call, index or tuple: `pip install`, `cd ..`.
_AUTOMAGIC = re.compile(r"([A-Za-z_]\w*)[ \t]+(?![=(\[,:)]|[-+*/%&|^<>@]=)\S")
_OPENING, _CLOSING = "([{", ")]}"


def blank_magics(text: str) -> str:
    """`text` with its IPython syntax blanked, as many lines long as `text`."""
    lines = LINE_BREAK.split(text)
    breaks = LINE_BREAK.findall(text) + [""]
    first = lines[0].lstrip()
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if name not in TRANSPARENT_CELL_MAGICS:
            return "".join(breaks)  # not Python: nothing of it is read
        lines[0] = "pass"
    depth, quote, continued, in_magic = 0, None, False, False
    for index, line in enumerate(lines):
        if in_magic:  # a magic's continuation line
            in_magic = line.endswith("\\")
            lines[index] = ""
            continue
        at_start = depth == 0 and quote is None and not continued
        after = _scan(line, depth, quote)
        if at_start and _is_ipython(line.strip(), after[3].rstrip()):
            in_magic = line.endswith("\\")
            lines[index] = line[: len(line) - len(line.lstrip())] + "pass"
            continue
        depth, quote, continued, _ = after
    return "".join(line + end for line, end in zip(lines, breaks))


def _is_ipython(line: str, code: str) -> bool:
    """Whether a line that starts a logical line is IPython syntax rather than Python (`code`: the
    line without its comment)."""
    if not code.strip():
        return False
    if line.startswith(_ESCAPES) or _MAGIC_ASSIGN.match(line) or code.endswith("?"):
        return True  # `?` is not Python outside strings and comments: `obj?`
    automagic = _AUTOMAGIC.match(line)
    return automagic is not None and automagic.group(1) in AUTOMAGICS and not _compiles(line)


def _compiles(code: str) -> bool:
    try:
        compile(code, "<cell>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _scan(line: str, depth: int, quote: Optional[str]) -> tuple[int, Optional[str], bool, str]:
    """After `line`: the bracket depth, the open string's quote (one or three quote characters),
    whether a backslash continues the line, and the line without its comment. A line that starts in
    brackets or a string does not start a logical line: `%` there is the operator, `!ls` is text."""
    index = 0
    while index < len(line):
        char = line[index]
        if quote is not None:
            if char == "\\":
                index += 2
                continue
            if line.startswith(quote, index):
                index += len(quote)
                quote = None
                continue
        elif char == "#":
            return depth, None, False, line[:index]
        elif char in "'\"":
            quote = char * 3 if line.startswith(char * 3, index) else char
            index += len(quote)
            continue
        elif char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth = max(depth - 1, 0)
        index += 1
    continued = line.endswith("\\")
    if quote is not None and len(quote) == 1 and not continued:
        quote = None  # an unterminated one-line string: the parser reports it
    return depth, quote, continued and quote is None, line
