#!/usr/bin/env python3
"""Render the benchmark JSON of one run into RESULTS.md and PNG plots.

Usage: render.py DIR. Reads DIR/{timeline,overhead,scale}.json, writes
DIR/timeline-*.png and DIR/overhead.png, and RESULTS.md: benchmarks/RESULTS.md
for a full run in benchmarks/results, DIR/RESULTS.md otherwise. Every
number comes from the JSON; nothing here is edited by hand.
"""
import json
import os
import subprocess
import sys

from ceiling import ceilings, hot_blocks, hot_files


def load(d, name):
    with open(os.path.join(d, name + ".json")) as f:
        return json.load(f)


WORKLOADS = [
    ("w1", "W1 scattered, W4 scan, W3 shift",
     "zipf:{zipf} 4 KiB reads over the first half of {data_mb} MiB, one"
     " sequential read of all of it (`scan`), the same reads again, then"
     " the hot set moves to the second half"),
    ("w2", "W2 hot files",
     "{w2_files} files of {w2_file_mb} MiB, a zipf:{zipf} choice of file,"
     " uniform 4 KiB reads inside it"),
    ("w6", "W6 mixed",
     "70/30 random 4 KiB reads and writes, zipf:{zipf}, over the first half"
     " of W1's data, after W1's timeline"),
    ("w1-snap", "W1 and W6 with a read-only snapshot",
     "W1's reads, then W6's reads and writes, with a read-only snapshot of"
     " the data's subvolume taken before the timeline"),
]


def seg_summary(tl, seg, direction="read"):
    """The last third of a segment's intervals (where it has converged):
    mean IOPS, median of the interval p50s and p99s, hit ratio."""
    pts = [p for p in tl["points"] if p["seg"] == seg and
           p["dir"] == direction]
    if not pts:
        return None
    tail = pts[len(pts) * 2 // 3:] or pts
    mid = sorted(p["p50_us"] for p in tail)
    p99 = sorted(p["p99_us"] for p in tail)
    # The hit ratio counts reads only.
    hits = [p["hit"] for p in tail if p["hit"] is not None and
            direction == "read"]
    # The share of fio's reads that took less than a disk read: the hit
    # ratio as the application sees it (older runs did not record it).
    under = [p["under_disk"] for p in tail if "under_disk" in p]
    return {"iops": sum(p["iops"] for p in tail) / len(tail),
            "p50_us": mid[len(mid) // 2], "p99_us": p99[len(p99) // 2],
            "hit": sum(hits) / len(hits) if hits else None,
            "under": sum(under) / len(under) if under else None}


def pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


def plot_timeline(d, work, tls, title):
    """p50 latency and hit ratio over time, one line per setup, the
    tiered setup's passes marked."""
    data = os.path.join(d, "timeline-%s.dat" % work)
    with open(data, "w") as f:
        for tl in tls:
            f.write("# %s\n" % tl["setup"])
            for p in tl["points"]:
                if p["dir"] == "read":
                    f.write("%s %d %s\n" % (p["t"], p["p50_us"],
                                            "NaN" if p["hit"] is None
                                            else p["hit"]))
            f.write("\n\n")
        f.write("# passes\n")
        for tl in tls:
            for x in tl["passes"]:
                f.write("%s %d\n" % (x["t"], x["moved_bytes"] >> 20))
        f.write("0 NaN\n")
    png = os.path.join(d, "timeline-%s.png" % work)
    # The segments of the longest timeline, as dashed lines with labels.
    longest = max(tls, key=lambda x: len(x["segments"]))
    marks = "\n".join(
        "set arrow from %s, graph 0 to %s, graph 1 nohead dt 2 lc 'black'\n"
        "set label '%s' at %s, graph 0.97 offset 0.5,0 font ',9'" % (
            sg["start_s"], sg["start_s"], sg["name"], sg["start_s"])
        for sg in longest["segments"])
    lat = ", ".join("'%s' index %d using 1:2 with lines lw 2 title '%s'" %
                    (data, i, tl["setup"]) for i, tl in enumerate(tls))
    hit = ", ".join("'%s' index %d using 1:3 with lines lw 2 title '%s'" %
                    (data, i, tl["setup"]) for i, tl in enumerate(tls))
    script = """
set terminal pngcairo size 1000,700
set output '%s'
set multiplot layout 2,1 title '%s'
%s
set xlabel 'seconds into the timeline'
set ylabel 'read p50 per interval (us, log)'
set logscale y
set key outside right
plot %s, '%s' index %d using 1:(200000) with impulses lc 'gray' title 'tiered: a pass'
unset logscale y
set ylabel 'read hit ratio (requests)'
set yrange [0:1.05]
plot %s
unset multiplot
""" % (png, title, marks, lat, data, len(tls), hit)
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    return os.path.basename(png)


HEADLINE = [("w1", "w1", "W1 scattered"), ("w1", "w3-shifted", "W3 after the shift"),
            ("w2", "w2", "W2 hot files"), ("w6", "w6", "W6 mixed (reads)")]


def render_headline(t, w):
    """Tiered against the others, as ratios, per workload."""
    tls = t["timelines"]
    tiered = {x["workload"]: x for x in tls if x["setup"] == "tiered"}
    others = [s for s in ("all-NVMe", "dm-cache-256k", "dm-cache-range",
                          "bcache", "all-SATA")
              if any(x["setup"] == s for x in tls)]
    w("Tiered against each setup, settled state (the last third of the"
      " segment): p50 and p99 as tiered / other (below 1: tiered is"
      " faster), IOPS as tiered / other (above 1: tiered is faster), and"
      " the two hit ratios: fio's reads faster than a disk read, and"
      " device read requests.")
    w("")
    w("| workload | against | p50 | p99 | IOPS | reads served fast |"
      " hit ratio (requests) |")
    w("|---|---|---:|---:|---:|---|---|")
    for work, seg, label in HEADLINE:
        if work not in tiered:
            continue
        mine = seg_summary(tiered[work], seg)
        if mine is None:
            continue
        for o in others:
            x = next((y for y in tls if y["setup"] == o and
                      y["workload"] == work), None)
            if x is None:
                continue
            r = seg_summary(x, seg) or seg_summary(x, x["segments"][0]["name"])
            if r is None:
                continue
            w("| %s | %s | %.2f | %.2f | %.2f | %s vs %s | %s vs %s |" % (
                label, o, mine["p50_us"] / max(r["p50_us"], 1),
                mine["p99_us"] / max(r["p99_us"], 1),
                mine["iops"] / max(r["iops"], 1),
                pct(mine["under"]), pct(r["under"]),
                pct(mine["hit"]), pct(r["hit"])))
    w("")


def high_wm(t):
    return next((str(x["mover_high_watermark"]) for x in t["timelines"]
                 if "mover_high_watermark" in x), "?")


def profiles(t):
    """The metadata profile of each setup's filesystem."""
    seen = {}
    for x in t["timelines"]:
        if x.get("metadata_profile"):
            seen.setdefault(x["setup"], x["metadata_profile"])
    return ", ".join("%s %s" % kv for kv in seen.items()) or "not recorded"


def render_ceiling(t, w, blocks):
    """The best W1 hit ratio any placement in whole units of each setup
    can reach (benchmarks/ceiling.py), so that granularity and policy are
    not confused."""
    st = t["setup"]
    mib = 1 << 20
    wm = high_wm(t)
    fast = st["cache_mb"] * mib * (int(wm) if wm.isdigit() else 100) // 100
    rng = st["range_size"]
    c = ceilings(blocks, st["zipf"], fast, [rng, 4096])
    k = ceilings(blocks, st["zipf"], st["cache_mb"] * mib, [262144, rng])
    w("The ceiling of W1 (`benchmarks/ceiling.py`, from fio's zipf"
      " generator and its scattering of the hot blocks): the share of the"
      " reads that the hottest whole units can serve from the fast space."
      " Tiered, %d KiB ranges in %d MiB (up to the watermark): %.1f %%"
      " (with 4 KiB ranges %.1f %%); dm-cache, 256 KiB blocks in %d MiB:"
      " %.1f %%, blocks of %d KiB: %.1f %%. A hit ratio below its ceiling"
      " is the policy's, not the granularity's. (An expected value, for"
      " the settled state; bcache caches 4 KiB pieces, so its ceiling is"
      " the 4 KiB one; dm-cache's blocks are aligned on the device, not"
      " in the file.)" % (
          rng >> 10, fast // mib, 100 * c[rng], 100 * c[4096],
          st["cache_mb"], 100 * k[262144], rng >> 10, 100 * k[rng]))
    w("")


def render_wear(d, t, rel, w):
    """W5: bytes written to the NVMe per setup and workload."""
    tls = t["timelines"]
    works = [x for x, _, _ in WORKLOADS if any(y["workload"] == x
                                                for y in tls)]
    setups = []
    for x in tls:
        if x["setup"] not in setups:
            setups.append(x["setup"])
    w("### W5 wear")
    w("")
    w("MiB written to the NVMe over each timeline (device write counters;"
      " for tiered, in brackets, what the mover moved in both directions),"
      " counted from the timeline's start, after the data was written;"
      " set them against the hot sets above. W1's timeline includes the"
      " scan and the shifted hot set, W6 writes to the data itself.")
    w("")
    w("| setup | " + " | ".join(works) + " |")
    w("|---|" + "---:|" * len(works))
    data = os.path.join(d, "wear.dat")
    with open(data, "w") as f:
        for s in setups:
            cells, vals = [], []
            for x in works:
                y = next((z for z in tls if z["setup"] == s and
                          z["workload"] == x), None)
                if y is None:
                    cells.append("-")
                    vals.append("0")
                    continue
                mib = y["fast_written_bytes"] >> 20
                cells.append("%d%s" % (mib, " (%d)" % (
                    y["mover_moved_bytes"] >> 20) if s == "tiered" else ""))
                vals.append(str(mib))
            w("| %s | %s |" % (s, " | ".join(cells)))
            f.write("%s %s\n" % (s, " ".join(vals)))
    w("")
    moves = [(x, next((z for z in tls if z["setup"] == "tiered" and
                       z["workload"] == x), {}).get("range_moves"))
             for x in works]
    if any(m for _, m in moves):
        w("Tier changes of each 1 MiB piece of the data under tiered, from"
          " FIEMAP and the chunk tree after every pass (the issue asks that"
          " no range move more than twice): pieces that moved, pieces that"
          " moved more than twice, the most moves of one piece, and the"
          " snapshots taken.")
        w("")
        w("| | " + " | ".join(works) + " |")
        w("|---|" + "---:|" * len(works))
        for label, key in (("pieces moved", "pieces_moved"),
                           ("more than twice", "moved_more_than_twice"),
                           ("most moves", "most_moves"),
                           ("snapshots", "snapshots")):
            w("| %s | %s |" % (label, " | ".join(
                str(m[key]) if m else "-" for _, m in moves)))
        w("")
    png = os.path.join(d, "wear.png")
    script = """
set terminal pngcairo size 800,400
set output '%s'
set title 'MiB written to the NVMe per timeline'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8
set ylabel 'MiB'
set key top left
plot %s
""" % (png, ", ".join("'%s' using %d%s title '%s'" % (
        data, i + 2, ":xtic(1)" if i == 0 else "", x)
        for i, x in enumerate(works)))
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    w("![wear](%swear.png)" % rel)
    w("")


def render_timelines(d, t, rel, w):
    """Section 1 of RESULTS.md from timeline.json."""
    st = t["setup"]
    w("## 1. Timelines")
    w("")
    w("Every setup gets the same I/O for the same time on one time axis."
      " The tiered setup's mover runs on its own timer, every %d s"
      " (`mover_interval`); dm-cache and bcache migrate on their own."
      " 4 KiB direct I/O at queue depth 1 (psync). Intervals of %d s;"
      " p50 and p99 from fio's per-I/O latency log. Two hit ratios:"
      " *reads served fast*, the share of fio's reads that completed in"
      " less than the least a disk read takes (%s ms), the same measure"
      " for every setup; and the share of completed read requests"
      " (`/sys/block/*/stat` field 1) of the device that holds the fast"
      " copy. The second does not count alike: for dm-cache and bcache"
      " the requests are those of the device the filesystem sits on, so"
      " their own promotion and backing reads are not in it; for tiered"
      " they are those of the two disks, so the mover's reads of what it"
      " promotes count as misses and its demotion reads and the raid1"
      " metadata reads as hits." %
      (st["mover_interval_s"], st["interval_s"],
       st.get("under_disk_ms", "-")))
    w("")
    if "disk_read_delay_ms" in st:
        w("The disk: QEMU throttles it to 150 MB/s and enough requests a"
          " second for that (the topology line above; the guest's"
          " requests are at most 128 KiB), and every setup reads it through"
          " dm-delay, %d ms per read (%s to %d ms:"
          " dm-delay counts in 4 ms jiffies), as a seek and half a"
          " rotation cost on a 7200 rpm disk; writes are not delayed, only"
          " throttled. Every setup's filesystem reads ahead %s KiB, so"
          " that W4's sequential read is bounded by the disk's throughput"
          " rather than by one delayed bio after another. Under TCG the"
          " CPU path of each stack shows in its latency: compare the p50"
          " of a setup whose reads all hit with all-NVMe's to see it." % (
              st["disk_read_delay_ms"], st.get("under_disk_ms", "?"),
              st["disk_read_delay_ms"], st.get("readahead_kb", "default")))
        w("")
    w("Fast space for data: the tiered NVMe is %d MiB, of which the"
      " mover reports %d MiB for data (`fast_capacity_bytes`: less the"
      " raid1 metadata, the system chunk and the room kept for metadata);"
      " dm-cache and bcache get caches of the same %d MiB. The mover's"
      " range is %d KiB; dm-cache runs with 256 KiB blocks and with"
      " blocks of the range size; bcache with 128 KiB buckets (it caches"
      " what is read, not whole buckets). The mover fills its share only"
      " up to its high watermark (%s %%, the default), the caches all of"
      " theirs. Metadata: %s." %
      (st["fast_mb"], st["cache_mb"], st["cache_mb"],
       st["range_size"] >> 10, high_wm(t), profiles(t)))
    w("")
    blocks = st["data_mb"] * 256 // 2
    hot = hot_blocks(blocks, st["zipf"])
    fmin, fmax = hot_files(st["w2_files"], st["zipf"])
    w("Hot sets (90 %% of the accesses): W1 %d MiB (%d of %d blocks of"
      " 4 KiB; fio scatters them over the file, so at the granularity of"
      " a range or a cache block nearly every one holds some), W2 %d to"
      " %d MiB (%d to %d of %d files: fio's zipf choice of file is not"
      " scattered, and one file draws most of the reads, which file"
      " depending on the seed). Seeds: the same for every setup, one per"
      " segment, from %d (in timeline.json). zipf's centre is fixed, so"
      " W1, W1 after the scan and W6 read one hot set; W3's is the same"
      " pattern in the other half of the file." % (
          hot * 4 >> 10, hot, blocks, fmin * st["w2_file_mb"],
          fmax * st["w2_file_mb"], fmin, fmax, st["w2_files"],
          st["seed_base"]))
    w("")
    render_ceiling(t, w, blocks)
    render_headline(t, w)
    tls = t["timelines"]
    nvme = {x["workload"]: x for x in tls if x["setup"] == "all-NVMe"}
    for work, title, desc in WORKLOADS:
        group = [x for x in tls if x["workload"] == work]
        if not group:
            continue
        w("### %s" % title)
        w("")
        w(desc.format(**st) + ". Per segment, the last third of its"
          " intervals (where it has settled); the hit ratio from requests"
          " over the whole timeline (the scan and the mover's own reads"
          " included), NVMe bytes written and, for tiered, bytes the mover"
          " moved.")
        w("")
        segs = []
        for x in group:
            for s in x["segments"]:
                if s["name"] != "scan" and s["name"] not in segs:
                    segs.append(s["name"])
        w("| setup | segment | IOPS | p50 us | p99 us | served fast |"
          " hit (requests) | p50 / all-NVMe | hit (requests, timeline) |"
          " NVMe written MiB | moved MiB |")
        w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for x in group:
            for s, dr in [(s, dr) for s in segs for dr in ("read", "write")]:
                r = seg_summary(x, s, dr)
                if r is None:
                    continue
                base = seg_summary(nvme[work], s, dr) if work in nvme else None
                if base is None and work in nvme:
                    base = seg_summary(nvme[work],
                                       nvme[work]["segments"][0]["name"], dr)
                w("| %s | %s | %.0f | %d | %d | %s | %s | %s | %s | %d | %d |" % (
                    x["setup"], s if dr == "read" else s + " (writes)",
                    r["iops"], r["p50_us"], r["p99_us"],
                    pct(r["under"]) if dr == "read" else "-", pct(r["hit"]),
                    "%.1fx" % (r["p50_us"] / max(base["p50_us"], 1))
                    if base else "-",
                    "%.0f%%" % (100.0 * x["fast_reads"] / x["reads"])
                    if x["reads"] else "-",
                    x["fast_written_bytes"] >> 20,
                    x["mover_moved_bytes"] >> 20))
        w("")
        scans = [(x["setup"], sg["seconds"]) for x in group
                 for sg in x["segments"] if sg["name"] == "scan"]
        if scans:
            w("W4, the sequential read of all %d MiB, took: " % st["data_mb"] +
              "; ".join("%s %.1f s (%.0f MB/s)" % (
                  n, sec, st["data_mb"] * 1.048576 / max(sec, 0.1))
                  for n, sec in scans) + ".")
            w("")
        w("![%s](%s%s)" % (title, rel, plot_timeline(d, work, group, title)))
        w("")
        caches = [x for x in group if "cache_read_hits" in x and
                  x["cache_read_hits"] + x["cache_read_misses"] > 0]
        if caches:
            w("Cross-check, the caches' own counters over the timeline: " +
              "; ".join("%s %d hits, %d misses (%.0f%%)" % (
                  x["setup"], x["cache_read_hits"], x["cache_read_misses"],
                  100.0 * x["cache_read_hits"] /
                  (x["cache_read_hits"] + x["cache_read_misses"]))
                  for x in caches) + ".")
            w("")


def plot_overhead(d, rows, labels):
    """Cost against no tracking per workload, the noise as error bars."""
    data = os.path.join(d, "overhead.dat")
    with open(data, "w") as f:
        for r in rows:
            f.write("%s %s\n" % (r[0], " ".join("%.2f" % x for x in r[1:])))
    series = ", ".join(
        "'%s' using %d:%d%s title '%s'" % (
            data if i == 0 else "", 2 * i + 2, 2 * i + 3,
            ":xtic(1)" if i == 0 else "", label)
        for i, label in enumerate(labels))
    png = os.path.join(d, "overhead.png")
    script = """
set terminal pngcairo size 700,400
set output '%s'
set title 'Cost against tracking off (%%, above 0 is slower; bars: spread)'
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8
set ylabel 'cost %%'
set xtics nomirror
set key top left
plot %s
""" % (png, series)
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def plot_scale(d, points):
    """Pass duration against tracked ranges, log-log, with the target of
    100 ms per million ranges (#13) as a line: a slope of one is linear."""
    data = os.path.join(d, "scale.dat")
    with open(data, "w") as f:
        for p in points:
            f.write("%d %d %d\n" % (p["nr_ranges"], p["mem_used"],
                                    p["pass_ms"]))
    png = os.path.join(d, "scale.png")
    script = """
set terminal pngcairo size 700,400
set output '%s'
set title 'A mover pass (aging and candidate selection) against tracked ranges'
set logscale xy
set xlabel 'tracked ranges'
set ylabel 'pass ms'
set key top left
set xrange [1000:*]
plot '%s' using 1:($3 > 0 ? $3 : 1/0) with linespoints title 'pass', \\
     x / 10000.0 with lines dashtype 2 title 'target: 100 ms per million ranges'
""" % (png, data)
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def render_beside_aging(s, w):
    """Reads that make new ranges, alone and beside back-to-back aging of
    the whole index: what the I/O path waits for on bucket locks."""
    rows = s.get("beside_aging")
    if not rows:
        return
    top = max(p["nr_ranges"] for p in s["points"])
    w("4 KiB direct reads of holes in a sparse file, each making a new range"
      " in the coldest bucket, with about %d ranges tracked: alone, then"
      " beside aging passes over the whole index back to back. Completion"
      " latency in microseconds." % top)
    w("")
    w("| reads | aging passes | reads done | p50 us | p99 us | p99.9 us | max us |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        w("| %s | %d | %d | %.0f | %.0f | %.0f | %.0f |" % (
            r["mode"], r["ages"], r["ios"], r["p50_ns"] / 1e3,
            r["p99_ns"] / 1e3, r["p999_ns"] / 1e3, r["max_ns"] / 1e3))
    w("")


MOUNTS = ["none", "hotdatatrack", "hotdatamove"]
OVERHEAD_METRICS = [("randread_iops", "random reads", True),
                    ("randread_cpu_ns", "CPU per random read", False),
                    ("randread2_iops", "random reads, two jobs", True),
                    ("seqwrite_mbps", "sequential writes", True),
                    ("smallfiles_ms", "small files", False)]
OVERHEAD_KEYS = ("randread_iops", "randread_p50_us", "randread_cpu_ns",
                 "randread2_iops", "seqwrite_mbps", "smallfiles_ms")


def overhead_rows(o):
    """Per mount and metric: (median, min, max) over the rounds."""
    rows = {}
    for m in MOUNTS:
        runs = [r for r in o["results"] if r["mount"] == m]
        if not runs:
            continue
        rows[m] = {}
        for k in OVERHEAD_KEYS:
            # Runs of before a metric existed do not have it.
            if any(k not in r for r in runs):
                continue
            v = sorted(r[k] for r in runs)
            n = len(v)
            rows[m][k] = ((v[(n - 1) // 2] + v[n // 2]) / 2, v[0], v[-1])
    return rows


def overhead(base, other, higher_better):
    """The cost in percent of other against base (positive: slower), the
    noise (the larger relative half-range of the two), and whether the
    two min-max ranges are apart, the only case in which a cost is
    stated."""
    bm, om = max(base[0], 1), max(other[0], 1)
    cost = 100.0 * ((bm - om) / bm if higher_better else (om - bm) / bm)
    noise = max(50.0 * (base[2] - base[1]) / bm,
                50.0 * (other[2] - other[1]) / om)
    apart = base[2] < other[1] or other[2] < base[1]
    return cost, noise, apart


def render_policy(d, w):
    """Section 4: the policy runs of benchmarks/run-policy, if any."""
    pdir = os.path.join(d, "policy")
    if not os.path.isdir(pdir):
        return
    runs = []
    for name in os.listdir(pdir):
        if name.endswith(".json"):
            with open(os.path.join(pdir, name)) as f:
                runs.append(json.load(f))
    if not runs:
        return
    runs.sort(key=lambda r: r["date"])
    import policy
    w("## 4. Policy runs")
    w("")
    w("The tiered setup alone, full size, with the mover's knobs changed"
      " (`benchmarks/run-policy NAME KNOBS`), to decide a policy setting;"
      " the same timelines, disk and measures as section 1, and the full"
      " run of section 1 (`full`) for comparison. One run each, no"
      " repetitions.")
    w("")
    w("| run | date | kernel series | knobs | promotion threshold |")
    w("|---|---|---|---|---:|")
    for r in runs:
        # The threshold the run had, knob or the default of its kernel.
        temps = {t.get("mover_promote_temp")
                 for t in r["result"]["timelines"]} - {None}
        w("| %s | %s | %s | %s | %s |" % (
            r["name"], r["date"], r["commit"], r["knobs"] or "defaults",
            ", ".join(str(t) for t in sorted(temps)) or "-"))
    w("")
    named = [("full", os.path.join(d, "timeline.json"))] + \
        [(r["name"], os.path.join(pdir, r["name"] + ".json")) for r in runs]
    for line in policy.table(named):
        w(line)
    w("")
    lines = policy.pass_p99(named)
    if lines:
        w("Foreground reads during the mover's passes against between them"
          " (a read counts as during a pass when it completed between the"
          " samples around the pass's end, widened by the pass's length;"
          " issue #12's target: p99 at most 2x).")
        w("")
        for line in lines:
            w(line)
        w("")


def render_readpolicy(d, w):
    """Section 5: the read-policy run of benchmarks/run-readpolicy, if any."""
    path = os.path.join(d, "readpolicy.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        rp = json.load(f)
    runs = rp["result"]["runs"]
    w("## 5. Read policy and metadata placement")
    w("")
    w("raid1 metadata over the SATA disk (dm-delay, as in section 1) and"
      " the NVMe; %d files of 1 KiB (inline, so metadata) in four trees;"
      " each workload run by four processes at once, one per tree, over a"
      " cold cache (a remount before each run), `read_policy` `pid` (the"
      " default) against `tier`, in %d interleaved rounds"
      " (`benchmarks/run-readpolicy`, %s kernel, series %s, %s). `stat`:"
      " `ls -lR`, a readdir and a stat of every file; `small`: read every file."
      " Then metadata placement: the same files with `dup` metadata,"
      " whose chunks `balance -m` put on the disk (`dup-disk`, a plain"
      " mount: the disk has most room) and then, under"
      " `metadata_tier=fast`, on the NVMe (`dup-nvme`), the same rounds"
      " one placement after the other. Medians with"
      " the min-max range; read requests per device from"
      " `/sys/block/*/stat`." % (
          rp["result"]["setup"]["files"], max(r["round"] for r in runs),
          rp["kernel"], rp["commit"], rp["date"]))
    w("")
    w("| workload | policy | ms | disk reads | NVMe reads | share from the disk |")
    w("|---|---|---:|---:|---:|---:|")
    med = {}
    for wl in ("stat", "small"):
        for pol in ("pid", "tier", "dup-disk", "dup-nvme"):
            xs = [r for r in runs if r["workload"] == wl and r["policy"] == pol]
            if not xs:
                continue
            ms = sorted(r["ms"] for r in xs)
            sr = sorted(r["slow_reads"] for r in xs)
            fr = sorted(r["fast_reads"] for r in xs)
            m = ms[len(ms) // 2]
            med[(wl, pol)] = m
            tot = sum(r["slow_reads"] + r["fast_reads"] for r in xs)
            w("| %s | %s | %d (%d-%d) | %d (%d-%d) | %d (%d-%d) | %.0f %% |" % (
                wl, pol, m, ms[0], ms[-1], sr[len(sr) // 2], sr[0], sr[-1],
                fr[len(fr) // 2], fr[0], fr[-1],
                100.0 * sum(r["slow_reads"] for r in xs) / max(tot, 1)))
    w("")
    for wl in ("stat", "small"):
        if (wl, "pid") in med and (wl, "tier") in med and med[(wl, "pid")]:
            w("- **%s**: `tier` takes %.2fx the time of `pid` (medians)." % (
                wl, med[(wl, "tier")] / med[(wl, "pid")]))
    for wl in ("stat", "small"):
        if (wl, "dup-disk") in med and (wl, "dup-nvme") in med \
                and med[(wl, "dup-disk")]:
            w("- **%s**, dup metadata: on the NVMe (`metadata_tier=fast`,"
              " then `balance -m`) it takes %.2fx the time it takes on the"
              " disk (medians)." % (
                  wl, med[(wl, "dup-nvme")] / med[(wl, "dup-disk")]))
    w("")


def main():
    d = sys.argv[1]
    tl, ov, sc = load(d, "timeline"), load(d, "overhead"), load(d, "scale")
    o, s = ov["result"], sc["result"]
    full = os.path.abspath(d) == os.path.abspath(
        os.path.join(os.path.dirname(__file__), "results"))
    md_path = os.path.join(os.path.dirname(__file__), "RESULTS.md") if full \
        else os.path.join(d, "RESULTS.md")
    rel = "results/" if full else ""
    out = []
    w = out.append
    w("# Benchmark results")
    w("")
    w("Generated by `make bench` (`benchmarks/run`, `benchmarks/render.py`);"
      " do not edit. Every figure is from one guest run; compare them as"
      " ratios, not as absolute numbers: the guest runs under TCG on a"
      " shared machine.")
    w("")
    w("| | |")
    w("|---|---|")
    for k in ("kernel", "commit", "date", "topology"):
        w("| %s | %s |" % (k, tl[k]))
    w("| mode | %s |" % ("quick smoke run (small sizes)" if tl["quick"]
                          else "full"))
    w("")
    render_timelines(d, tl["result"], rel, w)
    render_wear(d, tl["result"], rel, w)
    w("## 2. Tracking overhead")
    w("")
    w("All-NVMe btrfs (so that the CPU cost is not hidden behind a slow"
      " disk), a fresh filesystem for every run: %d s of 4 KiB random"
      " direct reads over %d MiB, a %d MiB buffered sequential write, and %d small"
      " files created and synced, read with cold caches and deleted. %d"
      " rounds, the order of the three mounts rotated each round. Medians"
      " with the min-max range; an overhead is stated only where the"
      " min-max ranges of the two mounts do not overlap. `hotdatamove` runs"
      " with the mover idle on a single device: it measures the hooks,"
      " not a pass." % (
          o["runtime_s"], o.get("file_mb", 128), 2 * o.get("file_mb", 128),
          o["small_files"], o["rounds"]))
    w("")
    rows = overhead_rows(o)
    heads = {"randread_iops": "rand read IOPS", "randread_p50_us": "p50 us",
             "randread_cpu_ns": "CPU ns per read",
             "randread2_iops": "rand read IOPS, 2 jobs",
             "seqwrite_mbps": "seq write MB/s",
             "smallfiles_ms": "small files ms"}
    keys = [k for k in OVERHEAD_KEYS if k in rows.get("none", {})]
    w("| mount | %s |" % " | ".join(heads[k] for k in keys))
    w("|---|%s" % ("---:|" * len(keys)))
    for m in MOUNTS:
        if m not in rows:
            continue
        w("| %s | %s |" % (m, " | ".join(
            "%d (%d-%d)" % rows[m][k] for k in keys)))
    w("")
    if "randread_cpu_ns" in keys:
        w("CPU per random read is the reading task's user and system time"
          " (fio's `usr_cpu` and `sys_cpu`) over the reads it completed:"
          " the cost of the I/O path without the device's time, which the"
          " throughput figures include. The two-job case reads the same"
          " file from two tasks, so that they contend on its items' locks.")
        w("")
    plot = []
    labels = [label for k, label, _ in OVERHEAD_METRICS if k in keys]
    for m in MOUNTS[1:]:
        if m not in rows:
            continue
        words = []
        bars = [m]
        for k, label, higher_better in OVERHEAD_METRICS:
            if k not in keys:
                continue
            cost, noise, apart = overhead(rows["none"][k], rows[m][k],
                                          higher_better)
            bars += [cost, noise]
            words.append("%s %s" % (label, (
                "%+.1f %% (spread ±%.1f %%)" % (cost, noise))
                if apart else
                "within noise (±%.1f %%, the runs' ranges overlap)" % noise))
        plot.append(bars)
        w("- **%s** against no tracking: %s." % (m, "; ".join(words)))
    w("")
    plot_overhead(d, plot, labels)
    w("![overhead](%soverhead.png)" % rel)
    w("")
    w("## 3. Memory and scale")
    w("")
    w("Ranges of %d bytes, each read once; memory from the tracker's own"
      " accounting (`hot/mem_used`), checked against the slab's"
      " (`/proc/slabinfo` for `btrfs_hot_range`: objects in use, object"
      " size, and slab pages per object, slab overhead included); pass"
      " duration from `mover_stats`." % s["range_size"])
    w("")
    w("| tracked ranges | inodes | memory bytes | bytes per range | slab objects | slab object size | slab bytes per object | pass ms | pass ns per range |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in s["points"]:
        slab = ("| %d | %d | %.1f " % (
            p["slab_objs"], p["slab_objsize"],
            p["slab_bytes"] / max(p["slab_objs"], 1))
            if "slab_objs" in p else "| - | - | - ")
        # Passes are timed in whole milliseconds: too coarse below 10.
        w("| %d | %d | %d | %.0f %s| %d | %s |" % (
            p["nr_ranges"], p["nr_inodes"], p["mem_used"],
            p["mem_used"] / max(p["nr_ranges"], 1), slab, p["pass_ms"],
            "%.0f" % (p["pass_ms"] * 1e6 / p["nr_ranges"])
            if p["pass_ms"] >= 10 else "-"))
    w("")
    plot_scale(d, s["points"])
    w("![scale](%sscale.png)" % rel)
    w("")
    render_beside_aging(s, w)
    render_policy(d, w)
    render_readpolicy(d, w)
    with open(md_path, "w") as f:
        f.write("\n".join(out))
    print("rendered %s" % md_path)
    if full:
        update_readme(out)


def update_readme(lines):
    """Put the timelines' introduction and headline table between the
    README's markers."""
    readme = os.path.join(os.path.dirname(__file__), "..", "README.md")
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    with open(readme) as f:
        text = f.read()
    if start not in text or end not in text:
        return
    i = lines.index("## 1. Timelines")
    j = next(k for k in range(i + 1, len(lines))
             if lines[k].startswith("### ") or lines[k].startswith("## "))
    body = [l.replace("](results/", "](benchmarks/results/")
            for l in lines[i + 1:j]]
    meta = [l for l in lines if l.startswith("| commit") or
            l.startswith("| date") or l.startswith("| kernel")]
    new = "\n".join([start, "", "Latest `make bench` (" +
                     ", ".join(m.strip("| ").replace(" | ", " ")
                               for m in meta) + "):"] + body +
                    ["Full results: [benchmarks/RESULTS.md]"
                     "(benchmarks/RESULTS.md).", "", end])
    text = text[:text.index(start)] + new + text[text.index(end) + len(end):]
    with open(readme, "w") as f:
        f.write(text)
    print("updated the benchmark section of README.md")


if __name__ == "__main__":
    main()
