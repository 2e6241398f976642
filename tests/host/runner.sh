#!/usr/bin/env bash
# quick: no kernel build, no guest (make check)
# The test runner cannot pass by accident: fed made-up results, it fails
# a KUnit suite that reports "not ok", a missing suite, a suite with fewer
# cases than the tree defines, a console without KTAP, a TAP script whose
# plan does not match or whose status is not 0, a host check that is not
# executable, and every kind of kernel report in a console log. The guest
# scripts' TAP helpers say "not ok" when a check fails.
set -u
cd "$(dirname "$0")/../.." || exit 1
exec python3 - <<'PY'
import importlib.machinery
import os
import subprocess
import tempfile

run = importlib.machinery.SourceFileLoader("run", "tests/run").load_module()
n = 0


def t(desc, cond):
    global n
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, desc))


def failures(fn, *args):
    """Run fn on a fresh Results with its output hidden; its failures."""
    r = run.Results()
    saved = run.Results.add
    run.Results.add = lambda self, ok, name, skip=False: \
        (self.failures.append(name) if not ok and not skip else None)
    try:
        fn(*args, r)
    finally:
        run.Results.add = saved
    return r.failures


def ktap(track_cases=10, track_verdict="ok", with_move=True):
    out = ["[    1.000000] KTAP version 1", "[    1.000001] 1..2"]
    suites = [("btrfs-hot-track", track_cases, track_verdict)]
    if with_move:
        suites.append(("btrfs-hot-move", 7, "ok"))
    for i, (name, cases, verdict) in enumerate(suites, 1):
        out += ["[    1.1] # Subtest: %s" % name,
                "[    1.1]     KTAP version 1",
                "[    1.1]     # Subtest: %s" % name,
                "[    1.1]     1..%d" % cases]
        out += ["[    1.2]     ok %d - case_%d" % (c, c) for c in range(1, cases + 1)]
        out += ["[    1.3] %s %d - %s" % (verdict, i, name)]
    return "\n".join(out) + "\n"


want = {"btrfs-hot-track": 10, "btrfs-hot-move": 7}
print("1..16")
t("a KTAP log with both suites and all their cases passes",
  failures(lambda c, r: run.parse_ktap(c, r, want), ktap()) == [])
t("a suite whose own result is 'not ok' fails",
  any("reported not ok" in f for f in
      failures(lambda c, r: run.parse_ktap(c, r, want), ktap(track_verdict="not ok"))))
t("a suite that did not run fails",
  any("btrfs-hot-move" in f for f in
      failures(lambda c, r: run.parse_ktap(c, r, want), ktap(with_move=False))))
t("a suite with fewer cases than the tree defines fails",
  any("ran its 10 cases (ran 9" in f for f in
      failures(lambda c, r: run.parse_ktap(c, r, want), ktap(track_cases=9))))
t("a console without KTAP fails",
  failures(lambda c, r: run.parse_ktap(c, r, want), "[ 1.0] booted\n") != [])
if os.path.isdir("build/linux"):
    t("the tree in build/linux defines the suites the runner expects",
      set(run.expected_kunit()) == set(want))
else:
    n += 1
    print("ok %d - the tree defines the expected suites # SKIP no build/linux" % n)
t("a TAP script that ran fewer tests than planned fails",
  failures(lambda o, r: run.parse_tap(o, "x", r, 0), "1..2\nok 1 - a\n") != [])
t("a TAP script that exits non-zero fails even when all it printed was ok",
  failures(lambda o, r: run.parse_tap(o, "x", r, 1), "1..1\nok 1 - a\n") != [])
t("a TAP script without a plan fails",
  failures(lambda o, r: run.parse_tap(o, "x", r, 0), "ok 1 - a\n") != [])

with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "lazy.sh")
    with open(p, "w") as f:
        f.write("#!/bin/sh\necho 1..1\necho ok 1 - fine\n")
    os.chmod(p, 0o644)
    t("a host check that is not executable fails instead of being skipped",
      any("not executable" in f for f in
          failures(lambda r: run.run_host_checks(r, [], hostdir=d))))

# Two lanes: the jobs run side by side (a waits for what b does), their
# blocks come out whole, and their counts add up.
import threading
seen = threading.Event()


def job_a(r):
    r.say("  # a1")
    r.add(seen.wait(10), "a saw b running beside it")
    r.say("  # a2")


def job_b(r):
    r.say("  # b1")
    seen.set()
    r.add(True, "b ran")
    r.say("  # b2")


top = run.Results(buffered=True)
run.run_jobs(top, [run.Job("a", job_a, 10), run.Job("b", job_b, 5)], lanes=2)
t("two lanes run two jobs side by side and count both (%d passed, %d failed)"
  % (top.passed, top.failed), top.passed == 2 and top.failed == 0)
blocks = [l for l in top.lines if not l.startswith(("-- started", "   ("))]
a_blk = ["== a", "  # a1", "  ok    a saw b running beside it", "  # a2"]
b_blk = ["== b", "  # b1", "  ok    b ran", "  # b2"]
t("each job's output comes out as one block",
  blocks in (a_blk + b_blk, b_blk + a_blk))

reports = [
    "WARNING: CPU: 1 PID: 42 at fs/btrfs/hot-move.c:100 f+0x1/0x2",
    "BUG: KASAN: slab-use-after-free in hot_walk+0x10/0x20",
    "BUG: KFENCE: use-after-free read in f+0x1/0x2",
    "kernel BUG at fs/btrfs/extent-tree.c:1234!",
    "WARNING: possible circular locking dependency detected",
    "unreferenced object 0xffff888004a1b000 (size 64):",
    "INFO: task umount:123 blocked for more than 120 seconds.",
    "BTRFS critical (device sda): corrupt leaf",
    "UBSAN: shift-out-of-bounds in fs/btrfs/hot-track.c:10:5",
]
t("every kind of kernel report matches the shared patterns",
  all(run.SPLAT_RE.search(l) for l in reports))
quiet = [
    "BTRFS info (device sda): enabling hot data tracking",
    "BTRFS warning (device sda): hot data: fast tier full",
    "random: crng init done",
]
t("ordinary kernel messages do not", not any(run.SPLAT_RE.search(l) for l in quiet))

# The guest scripts' TAP helpers, under the guest's shell (busybox sh).
script = """. tests/lib/tap.sh
ok first
not_ok second
check third true
check fourth false
is fifth a a
is sixth a b
done_testing
"""
for timed in ("", "1"):
    p = subprocess.run(["busybox", "sh", "-c", script], capture_output=True,
                       text=True, env=dict(os.environ, HEAT_TAPTIME=timed))
    got = [l for l in p.stdout.splitlines() if not l.startswith("#")]
    t("tests/lib/tap.sh reports ok and not ok as it should%s" %
      (" with heat.TAPTIME" if timed else ""),
      got == ["ok 1 - first", "not ok 2 - second", "ok 3 - third",
              "not ok 4 - fourth", "ok 5 - fifth", "not ok 6 - sixth",
              "1..6"] and p.returncode != 0)
PY
