"""Score nanlint's findings on packages it was never tuned on against the labels in bench/labels/.

    python bench/precision.py              # all sets
    python bench/precision.py --set F      # the freshest held-out set only

The pinned wheels of bench/heldout.txt are downloaded (hash-checked) into a cache outside the
repository, like the benchmark's corpus. nanlint runs with its default rules; each finding is matched
to its label by (package, file, line, rule). Printed per set:
- precision: findings labelled true or debatable, over findings that have a label;
- findings with no label (new since the labels were made: judge them, then add them);
- guarded sites flagged and real leaks found, from the site survey (a site counts as flagged when a
  finding starts on its line or on the lines after it, up to the next surveyed select and 8 at most:
  the span of a multi-line select).
Labels are judgements made by reading the code and, where cheap, running it (`ran`); see
docs/real-world.md for how they were made.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import fetch  # noqa: E402  (the benchmark's hash-checked download)

HERE = Path(__file__).resolve().parent
SETS = {"A": "tuning", "B": "heldout", "C": "heldout-c", "D": "heldout-d", "E": "heldout-e", "F": "heldout-f", "G": "heldout-g", "H": "heldout-h", "I": "heldout-i", "J": "heldout-j", "K": "heldout-k"}
SITE_SPAN = 8


def pinned() -> dict[str, list[tuple[str, str, str]]]:
    """set -> [(name, version, sha256)]"""
    out: dict[str, list] = collections.defaultdict(list)
    for line in (HERE / "heldout.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            spec, digest, which = line.split()
            name, version = spec.split("==")
            out[which].append((name, version, digest))
    return out


def findings(root: Path, min_confidence: str) -> list[tuple[str, int, str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "findings.json"
        subprocess.run(
            [sys.executable, "-m", "nanlint", "check", "--isolated", "--no-cache", "--min-confidence", min_confidence]
            + ["--output-format", "json", "-o", str(out), str(root)],
            capture_output=True,
            check=False,
        )
        return [(os.path.relpath(f["filename"], root), f["location"]["row"], f["code"], f["confidence"]) for f in json.loads(out.read_text())]


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
    for name, version, digest in pinned()[which]:
        root = fetch(name, version, digest, corpus)
        for file, row, code, confidence in findings(root, min_confidence):
            rows[(name, file)].add(row)
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
        flagged = [s for s in of_class if rows[(s["package"], s["file"])] & _span(s, sites)]
        print(f"  {cls} sites flagged: {len(flagged)}/{len(of_class)}")


def _span(site: dict, sites: list[dict]) -> set[int]:
    """The lines a select may span: from its own line to the next surveyed select's, 8 at most."""
    later = [s["line"] for s in sites if (s["package"], s["file"]) == (site["package"], site["file"]) and s["line"] > site["line"]]
    end = min([site["line"] + SITE_SPAN, *(line - 1 for line in later)])
    return set(range(site["line"], end + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), action="append", help="A (tuning), B to K (held out); default all")
    parser.add_argument("--corpus-dir", type=Path, default=Path(os.environ.get("NANLINT_BENCH_CORPUS", Path.home() / ".cache" / "nanlint-bench")))
    parser.add_argument("--table", action="store_true", help="also print each labelled finding as a Markdown table row")
    parser.add_argument("--min-confidence", choices=("medium", "high"), default="medium", help="passed to nanlint: score only findings this sure")
    args = parser.parse_args()
    for which in args.set or sorted(SETS):
        score(which, args.corpus_dir, args.table, args.min_confidence)


if __name__ == "__main__":
    main()
