"""Time nanlint against ruff and semgrep on real ML code, and write docs/performance.md.

    python bench/run.py                       # jax, keras and tensorflow-probability, best of 3
    python bench/run.py --packages all --runs 1 --check-identical

The pinned wheels of bench/corpus.txt are downloaded (hash-checked) and unpacked into a cache outside
the repository (--corpus-dir, default ~/.cache/nanlint-bench). Then, in one go and on the same trees:
nanlint cold (--no-cache), warm (a second run on an unchanged tree), with one job; ruff with its
default rules; semgrep with bench/semgrep-nan.yaml; and nanlint on 1/4, 1/2 and all of the files.
Each timing is the best wall time of --runs, timed with nothing else running: ruff and nanlint's cold
run take turns, so that a slow moment of the machine falls on both. Peak memory comes from one more
run of each command: the largest sum of the resident memory of the command and all its processes,
sampled every 20 ms (the sampling costs CPU, so that run is not timed). nanlint's findings must be
identical on every path (cold, warm, one job, and with --check-identical the unsliced reference), or
the run fails.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_PACKAGES = ("jax", "keras", "tensorflow-probability")
SAMPLE_EVERY_S = 0.02
_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


# --- the corpus -------------------------------------------------------------------------------
def pinned() -> dict[str, tuple[str, str]]:
    """name -> (version, sha256 of the wheel), from bench/corpus.txt."""
    out = {}
    for line in (HERE / "corpus.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            spec, digest = line.split()
            name, version = spec.split("==")
            out[name] = (version, digest)
    return out


def fetch(name: str, version: str, digest: str, corpus: Path) -> Path:
    """The unpacked package, downloaded and checked against its pinned hash on first use."""
    target = corpus / "src" / name
    if (target / ".complete").exists():
        return target
    wheels = corpus / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        # Only the source is read, never installed: a wheel's Python bound (jax-sph's `<=3.11` excludes
        # 3.11.7) does not apply.
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--ignore-requires-python", "-d", str(wheels), f"{name}=={version}"],
        check=True,
    )
    normalized = name.replace("-", "_").lower()
    candidates = [w for w in wheels.glob("*.whl") if w.name.lower().startswith(f"{normalized}-{version}-")]
    wheel = next((w for w in candidates if hashlib.sha256(w.read_bytes()).hexdigest() == digest), None)
    if wheel is None:
        sys.exit(f"bench: no wheel of {name}=={version} matches the pinned sha256 {digest}")
    shutil.rmtree(target, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    (target / ".complete").write_text(digest)
    return target


def python_files(roots: list[Path]) -> list[Path]:
    return sorted(p for root in roots for p in root.rglob("*.py"))


def count_lines(files: list[Path]) -> int:
    return sum(p.read_bytes().count(b"\n") for p in files)


# --- measuring ----------------------------------------------------------------------------------
@dataclass
class Timing:
    wall_s: float
    peak_mb: float
    stdout: str


def _tree_rss_kb(root_pid: int) -> int:
    """Resident memory of a process and all its descendants, from /proc (children lists, so that
    sampling costs little next to what it measures)."""
    total, stack = 0, [root_pid]
    while stack:
        pid = stack.pop()
        try:
            with open(f"/proc/{pid}/statm") as statm:
                total += int(statm.read().split()[1]) * _PAGE_KB
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as children:
                    stack += [int(child) for child in children.read().split()]
        except (OSError, ValueError):
            continue  # it ended between two reads
    return total


def measure(command: list[str], cwd: Path, env: Optional[dict] = None, sample_memory: bool = False) -> Timing:
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL, env=env)
        peak = 0
        if sample_memory:
            while process.poll() is None:
                peak = max(peak, _tree_rss_kb(process.pid))
                time.sleep(SAMPLE_EVERY_S)
        process.wait()
        wall = time.perf_counter() - start
        if process.returncode not in (0, 1):
            sys.exit(f"bench: {' '.join(command[:4])} ... exited {process.returncode}")
        out.seek(0)
        return Timing(wall, peak / 1024, out.read().decode())


def best_of(runs: int, command: list[str], cwd: Path, env: Optional[dict] = None, before=None) -> Timing:
    return best_of_each(runs, [command], cwd, env, before)[0]


def best_of_each(runs: int, commands: list[list[str]], cwd: Path, env: Optional[dict] = None, before=None) -> list[Timing]:
    """For each command, the best wall time of `runs` (the commands take turns), and the peak memory
    of one more, sampled, run."""
    walls: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for index, command in enumerate(commands):
            if before is not None:
                before()
            walls[index].append(measure(command, cwd, env).wall_s)
    out = []
    for index, command in enumerate(commands):
        if before is not None:
            before()
        sampled = measure(command, cwd, env, sample_memory=True)
        out.append(Timing(min(walls[index]), sampled.peak_mb, sampled.stdout))
    return out


def findings(json_output: str) -> list[tuple]:
    return sorted(
        (d["filename"], d["code"], d["location"]["row"], d["location"]["column"], d["message"]) for d in json.loads(json_output)
    )


def version_of(command: list[str], env: Optional[dict] = None) -> str:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env).stdout.strip().splitlines()[-1]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "not installed"


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        memory_kb = int(Path("/proc/meminfo").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        memory_kb = 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {cores} cores, {memory_kb / 1024**2:.0f} GiB, {platform.system()} {platform.release()}, Python {platform.python_version()}"


# --- the run ------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES), help="names from bench/corpus.txt, or all")
    parser.add_argument("--corpus-dir", type=Path, default=Path(os.environ.get("NANLINT_BENCH_CORPUS", Path.home() / ".cache" / "nanlint-bench")))
    parser.add_argument("--runs", type=int, default=3, help="timings per command; the best counts")
    parser.add_argument("--output", type=Path, default=REPO / "docs" / "performance.md")
    parser.add_argument("--no-semgrep", action="store_true")
    parser.add_argument("--check-identical", action="store_true", help="also run the unsliced reference (slow) and compare")
    args = parser.parse_args()

    pins = pinned()
    names = list(pins) if args.packages == ["all"] else args.packages
    roots = [fetch(name, *pins[name], args.corpus_dir) for name in names]
    workdir = args.corpus_dir / "src"
    relative = [str(r.relative_to(workdir)) for r in roots]
    files = python_files(roots)
    lines = count_lines(files)
    print(f"bench: {len(files)} files, {lines} lines in {', '.join(names)}", flush=True)

    bin_dir = Path(sys.executable).parent
    nanlint = [sys.executable, "-m", "nanlint", "check", "--exit-zero", "--output-format", "json"]
    ruff = [shutil.which("ruff", path=str(bin_dir)) or shutil.which("ruff") or "ruff"]
    semgrep = shutil.which("semgrep", path=str(bin_dir)) or shutil.which("semgrep")
    cache_dir = Path(tempfile.mkdtemp(prefix="nanlint-bench-cache-"))
    quiet_env = {**os.environ, "SEMGREP_ENABLE_VERSION_CHECK": "0", "SEMGREP_SEND_METRICS": "off"}

    rows: list[tuple[str, str, Timing, int]] = []

    def add(tool: str, how: str, timing: Timing, n_files: int = len(files)) -> None:
        rows.append((tool, how, timing, n_files))
        print(f"bench: {tool} {how}: {timing.wall_s:.2f} s, {timing.peak_mb:.0f} MB", flush=True)

    ruff_check = ruff + ["check", "--no-cache", "--isolated", "--exit-zero", "--quiet", *relative]
    ruff_timing, cold = best_of_each(args.runs, [ruff_check, nanlint + ["--no-cache", *relative]], workdir)
    add("ruff", "check --no-cache (default rules)", ruff_timing)
    add("nanlint", "check --no-cache", cold)
    clear = lambda: shutil.rmtree(cache_dir, ignore_errors=True)  # noqa: E731
    filled = best_of(1, nanlint + ["--cache-dir", str(cache_dir), *relative], workdir, before=clear)
    warm = best_of(args.runs, nanlint + ["--cache-dir", str(cache_dir), *relative], workdir)
    add("nanlint", "check, warm cache (nothing changed)", warm)
    one_job = best_of(args.runs, nanlint + ["--no-cache", "--jobs", "1", *relative], workdir)
    add("nanlint", "check --no-cache --jobs 1", one_job)
    if semgrep and not args.no_semgrep:
        sg = best_of(args.runs, [semgrep, "--config", str(HERE / "semgrep-nan.yaml"), "--metrics=off", "--disable-version-check", "--quiet", *relative], workdir, quiet_env)
        add("semgrep", "--config bench/semgrep-nan.yaml", sg)

    paths = {"cold": cold, "cache fill": filled, "warm": warm, "one job": one_job}
    if args.check_identical:
        paths["unsliced reference"] = measure(nanlint + ["--no-cache", "--no-slicing", *relative], workdir)
    reference = findings(cold.stdout)
    for label, timing in paths.items():
        if findings(timing.stdout) != reference:
            sys.exit(f"bench: nanlint's findings differ between the cold run and the {label} run")
    print(f"bench: {len(reference)} findings, identical on: {', '.join(paths)}", flush=True)

    scaling = []
    for fraction, step in (("1/4", 4), ("1/2", 2), ("all", 1)):
        subset = files[::step]
        timing = best_of(args.runs, nanlint + ["--no-cache", *[str(p.relative_to(workdir)) for p in subset]], workdir)
        scaling.append((fraction, len(subset), count_lines(subset), timing))
        print(f"bench: scaling {fraction}: {timing.wall_s:.2f} s", flush=True)
    shutil.rmtree(cache_dir, ignore_errors=True)

    versions = {
        "nanlint": version_of([sys.executable, "-m", "nanlint", "--version"]),
        "ruff": version_of(ruff + ["--version"]),
        "semgrep": version_of([semgrep, "--version", "--disable-version-check"], quiet_env) if semgrep else "not installed",
    }
    report = render(names, len(files), lines, rows, ruff_timing, scaling, len(reference), list(paths), versions, args.runs)
    write_section(args.output, report)
    print(f"bench: wrote {args.output}")


def write_section(path: Path, report: str) -> None:
    """Replace the text between the bench markers, keeping what people wrote around it."""
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    text = path.read_text() if path.exists() else ""
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + start + "\n" + report + end + rest.split(end, 1)[1]
    else:
        text = text + start + "\n" + report + end + "\n"
    path.write_text(text)


def render(names, n_files, lines, rows, ruff_timing, scaling, n_findings, identical_on, versions, runs) -> str:
    table = [
        "| tool | how | wall (s) | files/s | lines/s | peak memory (MB) | × ruff |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for tool, how, t, count in rows:
        table.append(
            f"| {tool} | `{how}` | {t.wall_s:.2f} | {count / t.wall_s:,.0f} | {lines / t.wall_s:,.0f} | {t.peak_mb:,.0f} | {t.wall_s / ruff_timing.wall_s:.2f} |"
        )
    scale = ["| files | lines | wall (s) | lines/s | peak memory (MB) |", "|---|---:|---:|---:|---:|"]
    for fraction, count, n_lines, t in scaling:
        scale.append(f"| {fraction} ({count}) | {n_lines:,} | {t.wall_s:.2f} | {n_lines / t.wall_s:,.0f} | {t.peak_mb:,.0f} |")
    return BENCH_REPORT.format(
        packages=", ".join(names),
        n_files=n_files,
        lines=f"{lines:,}",
        machine=machine(),
        date=time.strftime("%Y-%m-%d"),
        versions=", ".join(v if v.startswith(k) else f"{k} {v}" for k, v in versions.items()),
        runs=runs,
        table="\n".join(table),
        scaling="\n".join(scale),
        n_findings=n_findings,
        identical_on=", ".join(identical_on),
    )


BENCH_REPORT = """<!-- Written by bench/run.py; edit the script, not this section. -->
### {packages}

{n_files} files, {lines} lines, on {machine}; {date}; {versions}. Best wall time of {runs} run(s);
ruff and nanlint's cold run took turns. Peak memory is from one more run of each, sampled (not timed).
nanlint's {n_findings} findings were identical on every path: {identical_on}.

{table}

Scaling: the same packages at 1/4, 1/2 and all of their files (`nanlint check --no-cache`).

{scaling}
"""


if __name__ == "__main__":
    main()
