"""Score nanlint's findings on packages it was never tuned on against the labels in bench/labels/.

    python bench/precision.py              # all sets
    python bench/precision.py --set F      # one set only (repeat --set for more)

The pinned wheels of bench/heldout.txt are downloaded (hash-checked) into a cache outside the
repository, like the benchmark's corpus. nanlint runs with its default rules; each finding is matched
to its label by (package, file, line, rule). Printed per set:
- precision: findings labelled true or debatable, over findings that have a label;
- findings with no label (new since the labels were made: judge them, then add them);
- guarded sites flagged and real leaks found, from the site survey (a site counts as flagged when a
  finding is about it, or about a select nested in it or holding it: the finding's `select` starts
  within the site's call, or the site within the finding's select. Until the tenth round a finding
  counted for a site when its own location lay in the site's first lines, up to the next surveyed
  select and 8 at most, which gave an op of a nested select to whichever select's lines it sat in
  and a clamp finding to a nearby where).
Labels are judgements made by reading the code and, where cheap, running it (`ran`); see
docs/real-world.md for how they were made.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import fetch  # noqa: E402  (the benchmark's hash-checked download)

HERE = Path(__file__).resolve().parent
SETS = {"A": "tuning", "B": "heldout", "C": "heldout-c", "D": "heldout-d", "E": "heldout-e", "F": "heldout-f", "G": "heldout-g", "H": "heldout-h", "I": "heldout-i", "J": "heldout-j", "K": "heldout-k", "L": "heldout-l", "M": "heldout-m", "N": "heldout-n", "O": "heldout-o", "P": "heldout-p", "Q": "heldout-q", "R": "heldout-r", "S": "heldout-s", "T": "heldout-t", "U": "heldout-u", "V": "heldout-v", "W": "heldout-w"}


def pinned() -> dict[str, list[tuple[str, str, str]]]:
    """set -> [(name, version, sha256)]"""
    out: dict[str, list] = collections.defaultdict(list)
    for line in (HERE / "heldout.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            spec, digest, which = line.split()
            name, version = spec.split("==")
            out[which].append((name, version, digest))
    return out


def findings(root: Path, min_confidence: str) -> list[tuple[str, int, str, str, int]]:
    """(file, row, rule, confidence, the row its select starts on) of each finding under `root`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "findings.json"
        subprocess.run(
            [sys.executable, "-m", "nanlint", "check", "--isolated", "--no-cache", "--min-confidence", min_confidence]
            + ["--output-format", "json", "-o", str(out), str(root)],
            capture_output=True,
            check=False,
        )
        return [
            (os.path.relpath(f["filename"], root), f["location"]["row"], f["code"], f["confidence"], f["select"]["row"])
            for f in json.loads(out.read_text())
        ]


def score(which: str, corpus: Path, table: bool = False, min_confidence: str = "medium") -> None:
    labels = [json.loads(line) for line in (HERE / "labels" / f"{SETS[which]}.jsonl").read_text().splitlines()]
    sites = [json.loads(line) for line in (HERE / "labels" / f"{SETS[which]}-sites.jsonl").read_text().splitlines()]
    verdicts: dict[tuple, list[dict]] = collections.defaultdict(list)
    for label in labels:
        verdicts[(label["package"], label["file"], label["line"], label["rule"])].append(label)
    counts: collections.Counter = collections.Counter()
    by_rule: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    by_confidence: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    unlabelled, rows, judged_rows = [], collections.defaultdict(set), []
    extents: dict[tuple[str, str], dict[int, int]] = {}
    for name, version, digest in pinned()[which]:
        root = fetch(name, version, digest, corpus)
        for file, row, code, confidence, select in findings(root, min_confidence):
            rows[(name, file)].add(select)
            if (name, file) not in extents:
                extents[(name, file)] = _select_extents(root / file)
            known = verdicts.get((name, file, row, code))
            if known:
                label = known.pop(0) if len(known) > 1 else known[0]
                counts[label["verdict"]] += 1
                by_rule[code][label["verdict"]] += 1
                by_confidence[confidence][label["verdict"]] += 1
                judged_rows.append(label)
            else:
                unlabelled.append(f"{name}/{file}:{row} {code}")
    judged = sum(counts.values())
    worth = counts["true"] + counts["debatable"]
    at = "" if min_confidence == "medium" else f" at --min-confidence {min_confidence}"
    print(f"set {which} ({SETS[which]}){at}: {judged + len(unlabelled)} findings; true {counts['true']}, debatable {counts['debatable']}, false {counts['false']}")
    print(f"  precision: {worth}/{judged} = {worth / max(judged, 1):.0%}")
    for item in unlabelled:
        print(f"  no label yet: {item}")
    for key, tally in [*sorted(by_rule.items()), *sorted(by_confidence.items())]:
        print(f"  {key}: {sum(tally.values())} findings; true {tally['true']}, debatable {tally['debatable']}, false {tally['false']}")
    if table:
        print("\n| package | file:line | rule | verdict | why |\n|---|---|---|---|---|")
        for label in judged_rows:
            why = label["guard_or_reason"].replace("|", "\\|").replace("\n", " ")
            verdict = label["verdict"] + (f" ({label['cause']})" if label["verdict"] == "false" else "")
            print(f"| {label['package']} | `{label['file']}:{label['line']}` | {label['rule']} | {verdict} | {why} |")
        print()
    for cls in ("guarded", "real-leak"):
        of_class = [s for s in sites if s["class"] == cls]
        flagged = [s for s in of_class if _flagged(s, rows[(s["package"], s["file"])], extents.get((s["package"], s["file"]), {}))]
        print(f"  {cls} sites flagged: {len(flagged)}/{len(of_class)}")


_SELECTS = re.compile(r"(where|select|select_n|maximum|minimum|clip|clamp|clamp_min|clamp_max|clip_by_value|nan_to_num)$")


def _select_extents(path: Path) -> dict[int, int]:
    """Line -> the last line of the widest select-like call that starts on it (`where`, a clamp, a
    NaN mask), read from the file's syntax tree."""
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return {}
    extents: dict[int, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if _SELECTS.search(name):
                extents[node.lineno] = max(extents.get(node.lineno, 0), node.end_lineno or node.lineno)
    return extents


def _flagged(site: dict, selects: set[int], extents: dict[int, int]) -> bool:
    """A surveyed select is flagged when a finding is about it or about a select nested in it or holding
    it: one where-expression, whose pole one double where fixes."""
    line = site["line"]
    end = extents.get(line, line)
    return any(line <= s <= end or s <= line <= extents.get(s, s) for s in selects)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), action="append", help=f"A (tuning), B to {max(SETS)} (held out); default all")
    parser.add_argument("--corpus-dir", type=Path, default=Path(os.environ.get("NANLINT_BENCH_CORPUS", Path.home() / ".cache" / "nanlint-bench")))
    parser.add_argument("--table", action="store_true", help="also print each labelled finding as a Markdown table row")
    parser.add_argument("--min-confidence", choices=("medium", "high"), default="medium", help="passed to nanlint: score only findings this sure")
    args = parser.parse_args()
    for which in args.set or sorted(SETS):
        score(which, args.corpus_dir, args.table, args.min_confidence)


if __name__ == "__main__":
    main()
