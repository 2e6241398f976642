#!/usr/bin/env python3
"""The best hit ratio any placement can reach on a zipf workload.

fio's zipf:THETA over N blocks (fio 3.33, Debian 12's: lib/zipf.c) draws
rank v with the probability of its generator (Gray et al.'s
approximation, ranks 1 and 2 exact) and reads block
(hash(v - 1) + centre * N) % N, hash being the multiplication by the
64-bit golden ratio modulo 2^64: the hot blocks are scattered over the
file, and ranks that collide modulo N read the same block. A tier that holds whole ranges of R blocks, with
room for C ranges, serves at most the reads of the C hottest ranges. That
is the ceiling of a policy with ranges of that size, whatever it does;
this computes it from the distribution itself, not from a run.

Usage: ceiling.py N THETA FAST_BYTES RANGE_BYTES... (blocks of 4 KiB).

A policy that moves a range once it has seen FLOOR reads of it can only
place what the reads so far have shown: right after a mount or a shift
of the hot set, the disk serves the reads, at a seek each, and the
reads a pass has seen bound what it can know.

Usage: ceiling.py --known N THETA FAST_BYTES RANGE_BYTES FLOOR READS...
"""
import random
import sys

GOLDEN_RATIO_64 = 0x61C8864680B583EB
FSERVICE_SHIFT = 10
MASK = (1 << 64) - 1


def fio_zipf_pmf(n, theta):
    """The probability of each rank 1..n+1 under fio's zipf generator
    (rank n+1 is reachable at u -> 1; it wraps like any other)."""
    zetan = sum((i + 1) ** -theta for i in range(min(n, 10000000)))
    zeta2 = 1.0 + 0.5 ** theta
    alpha = 1.0 / (1.0 - theta)
    eta = (1.0 - (2.0 / n) ** (1.0 - theta)) / (1.0 - zeta2 / zetan)
    p = [0.0] * (n + 2)
    p[1] = 1.0 / zetan
    p[2] = 0.5 ** theta / zetan
    u0 = zeta2 / zetan      # the third branch takes u in [u0, 1)

    # val = 1 + floor(n * (eta * u - eta + 1) ** alpha); the inverse gives
    # the u at which n * g(u) reaches x.
    # val grows with u, and val <= v while u < u_of(v).
    def u_of(x):
        return 1.0 + ((x / n) ** (1.0 / alpha) - 1.0) / eta

    lo = u0
    for v in range(1, n + 2):
        hi = min(max(u_of(float(v)), u0), 1.0)
        if hi > lo:
            p[v] += hi - lo
            lo = hi
    return p


def block_heat(n, theta, centre=0.0):
    """Probability of each of the n blocks."""
    p = fio_zipf_pmf(n, theta)
    off = int(centre * n)
    heat = [0.0] * n
    for v in range(1, n + 2):
        if p[v]:
            heat[(((v - 1) * GOLDEN_RATIO_64 & MASK) + off) % n] += p[v]
    return heat


def file_heat(nr_files, theta, off=0):
    """Probability of each file under fio's file_service_type=zipf: ranks
    over nr_files << 10 values, not hashed, offset by off (from the seed
    when no centre is given), the file being the value >> 10."""
    n = nr_files << FSERVICE_SHIFT
    p = fio_zipf_pmf(n, theta)
    heat = [0.0] * nr_files
    for v in range(1, n + 2):
        heat[((v - 1 + off) % n) >> FSERVICE_SHIFT] += p[v]
    return heat


def hot_files(nr_files, theta, share=0.9):
    """The fewest and the most files that draw share of the accesses,
    over the offsets fio may start from."""
    counts = []
    for off in range(0, 1 << FSERVICE_SHIFT, 64):
        h = sorted(file_heat(nr_files, theta, off), reverse=True)
        acc, k = 0.0, 0
        while acc < share * sum(h):
            acc += h[k]
            k += 1
        counts.append(k)
    return min(counts), max(counts)


def hot_blocks(n, theta, share=0.9):
    """The number of blocks that draw share of the accesses."""
    h = sorted(block_heat(n, theta), reverse=True)
    acc, k = 0.0, 0
    while acc < share * sum(h):
        acc += h[k]
        k += 1
    return k


def ceiling(heat, range_blocks, fast_ranges):
    """The share of reads the fast_ranges hottest ranges serve."""
    ranges = [sum(heat[i:i + range_blocks])
              for i in range(0, len(heat), range_blocks)]
    ranges.sort(reverse=True)
    return sum(ranges[:max(fast_ranges, 0)]) / sum(ranges)


def ceilings(n, theta, fast_bytes, range_sizes):
    """{range bytes: ceiling} for n blocks of 4 KiB and fast_bytes."""
    heat = block_heat(n, theta)
    return {r: ceiling(heat, max(r // 4096, 1), fast_bytes // r)
            for r in range_sizes}


def known_ceiling(heat, range_blocks, fast_ranges, reads, floor,
                  trials=20, seed=1):
    """The share of reads that a policy counting accesses per range can
    place after seeing `reads` reads: the ranges read at least `floor`
    times, the most read first, up to fast_ranges of them. Its mean over
    `trials` draws of the reads (a fixed seed: the same figures every
    time). No policy that waits for `floor` accesses does better at that
    point, whatever its budget; the ceiling above is its limit as reads
    go on."""
    ranges = [sum(heat[i:i + range_blocks])
              for i in range(0, len(heat), range_blocks)]
    total = sum(ranges)
    idx = range(len(ranges))
    rnd = random.Random(seed)
    served = 0.0
    for _ in range(trials):
        count = [0] * len(ranges)
        for i in rnd.choices(idx, weights=ranges, k=reads):
            count[i] += 1
        known = sorted((i for i in idx if count[i] >= floor),
                       key=lambda i: -count[i])[:max(fast_ranges, 0)]
        served += sum(ranges[i] for i in known) / total
    return served / trials


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--known":
        # --known N THETA FAST_BYTES RANGE_BYTES FLOOR READS...
        n, theta, fast = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
        rng, floor = int(sys.argv[5]), int(sys.argv[6])
        heat = block_heat(n, theta)
        for reads in (int(x) for x in sys.argv[7:]):
            c = known_ceiling(heat, max(rng // 4096, 1), fast // rng, reads,
                              floor)
            print("%6d reads, %d or more per %d KiB range: %.1f %% of the reads"
                  % (reads, floor, rng >> 10, 100 * c))
        return
    n, theta, fast = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    for r, c in ceilings(n, theta, fast, [int(x) for x in sys.argv[4:]]).items():
        print("%8d KiB ranges: %.1f %% of the reads" % (r >> 10, 100 * c))


if __name__ == "__main__":
    main()
