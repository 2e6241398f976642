#!/usr/bin/env python3
"""Compare mover policies: the tiered timelines of several runs side by side.

    benchmarks/policy.py NAME=TIMELINE_JSON ...

Each TIMELINE_JSON is a benchmarks/run result (timeline.json) or the
"@@JSON timeline" lines of a timeline guest's output (build/logs/*.out),
as left by `benchmarks/run-policy`. Prints a Markdown table per workload
segment of the tiered setup: the share of reads served faster than a
disk read and the median p50, settled (the last third of the segment, as
RESULTS.md counts) and in the interval after the segment's first and second passes,
and over the whole timeline what the mover moved to the NVMe and what was
written to it in all, hot writes included (W5); then the p99 during and
between passes, the passes' length and rate, and how often each 1 MiB
piece changed tier.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from render import seg_summary, pct  # noqa: E402


def timelines(path):
    """The timeline records of a result file or of a guest's output."""
    with open(path) as f:
        text = f.read()
    if text.lstrip().startswith("{"):
        return json.loads(text)["result"]["timelines"]
    return [json.loads(line.split(" ", 2)[2]) for line in text.splitlines()
            if line.startswith("@@JSON timeline ")]


def after_passes(tl, seg, n):
    """Served fast and p50 in the first interval that starts after the
    segment's n-th mover pass, or None."""
    start = next(s["start_s"] for s in tl["segments"] if s["name"] == seg)
    passes = [p["t"] for p in tl["passes"] if p["t"] >= start]
    if len(passes) < n:
        return None
    pts = [p for p in tl["points"] if p["seg"] == seg and p["dir"] == "read"
           and p["t"] >= passes[n - 1] and "under_disk" in p]
    return pts[0] if pts else None


def table(runs):
    """Markdown lines comparing the tiered timelines of [(name, path)]."""
    loaded = [(name, [t for t in timelines(path) if t["setup"] == "tiered"])
              for name, path in runs]
    segs = []
    # The timeline order of the run with the most segments first, so that
    # a segment that older runs lack sits where it ran.
    for _, tls in sorted(loaded, key=lambda r: -sum(len(t["segments"])
                                                     for t in r[1])):
        for tl in tls:
            for s in tl["segments"]:
                key = (tl["workload"], s["name"])
                if s["name"] != "scan" and key not in segs:
                    segs.append(key)
    out = ["| workload | segment | run | served fast, settled | p50 settled"
           " | served fast after 1 pass | after 2 passes | moved to NVMe"
           " | written to NVMe |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for work, seg in segs:
        for name, tls in loaded:
            tl = next((t for t in tls if t["workload"] == work), None)
            s = tl and seg_summary(tl, seg)
            if not s:
                continue
            a1, a2 = after_passes(tl, seg, 1), after_passes(tl, seg, 2)
            out.append("| %s | %s | %s | %s | %.0f us | %s | %s | %d MiB"
                       " | %d MiB |" % (
                           work, seg, name, pct(s["under"]), s["p50_us"],
                           pct(a1["under_disk"]) if a1 else "-",
                           pct(a2["under_disk"]) if a2 else "-",
                           tl.get("mover_moved_bytes", 0) >> 20,
                           tl.get("fast_written_bytes", 0) >> 20))
    return out


def pass_p99(runs):
    """Markdown lines: the foreground read p99 during mover passes against
    between them, per tiered timeline of [(name, path)] that measured it
    (issue #12's target: at most 2x)."""
    out = ["| run | workload | reads during passes | p99 during | p99 between"
           " | during / between |",
           "|---|---|---:|---:|---:|---:|"]
    for name, path in runs:
        for tl in timelines(path):
            if tl["setup"] != "tiered" or "p99_between_passes_us" not in tl:
                continue
            during, between = (tl["p99_during_pass_us"],
                               tl["p99_between_passes_us"])
            out.append("| %s | %s | %d | %d us | %d us | %s |" % (
                name, tl["workload"], tl["reads_during_pass"], during,
                between, "%.2fx" % (during / between)
                if tl["reads_during_pass"] and between else "-"))
    return out if len(out) > 2 else []


def pass_rate(runs):
    """Markdown lines: per tiered timeline of [(name, path)], the passes
    that moved something, what they moved, how long they took in all and
    the longest, and the rate (what the mover's reads of the disk allow)."""
    out = ["| run | workload | passes that moved | MiB moved | seconds"
           " | longest pass | MiB/s |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for name, path in runs:
        for tl in timelines(path):
            ps = [p for p in tl.get("passes", [])
                  if p.get("moved_bytes") and "ms" in p]
            if tl["setup"] != "tiered" or not ps:
                continue
            moved = sum(p["moved_bytes"] for p in ps) / 2 ** 20
            secs = sum(p["ms"] for p in ps) / 1000
            out.append("| %s | %s | %d | %.0f | %.1f | %.1f s | %.1f |" % (
                name, tl["workload"], len(ps), moved, secs,
                max(p["ms"] for p in ps) / 1000,
                moved / secs if secs else 0))
    return out if len(out) > 2 else []


def range_moves(runs):
    """Markdown lines: per tiered timeline of [(name, path)] that counted
    them, the 1 MiB pieces that changed tier, those that changed more than
    twice (issue #12's W5: none should), and the most changes of one."""
    out = ["| run | workload | pieces moved | more than twice | most moves"
           " | snapshots |",
           "|---|---|---:|---:|---:|---:|"]
    for name, path in runs:
        for tl in timelines(path):
            m = tl.get("range_moves")
            if tl["setup"] != "tiered" or not m:
                continue
            out.append("| %s | %s | %d | %d | %d | %d |" % (
                name, tl["workload"], m["pieces_moved"],
                m["moved_more_than_twice"], m["most_moves"], m["snapshots"]))
    return out if len(out) > 2 else []


def main():
    runs = [arg.partition("=")[::2] for arg in sys.argv[1:]]
    print("\n".join(table(runs)))
    for lines in (pass_p99(runs), pass_rate(runs), range_moves(runs)):
        if lines:
            print("")
            print("\n".join(lines))


if __name__ == "__main__":
    main()
