#!/usr/bin/env python3
"""Does DeepSpeed's pipeline table cost more than the dataflow 1F1B tandem runs for it?

The deepspeed stack (frameworks/presets/deepspeed.json, "pp_schedule_runtime") is modelled
as the dataflow 1F1B. DeepSpeed's engine instead walks a table of 2 (m + p - 1) steps
(deepspeed/runtime/pipe/schedule.py, TrainSchedule): on even steps even stages run a
forward and odd stages a backward, on odd steps the reverse, and each step first does
its exchanges as blocking send / recv pairs (deepspeed/runtime/pipe/p2p.py). A forward
step receives the activation from the previous stage and then sends that stage the
gradient of the step before; a backward step sends the next stage the activation of the
step before and then receives its gradient.

This script runs that table with each exchange done when both stages have reached it
(a rendezvous, transfer time zero) and compares the makespan with the dataflow 1F1B's:
(m + p - 1)(F + B) for uniform stages, and the dataflow 1F1B run on the same times for
30 random uneven ones. It prints one line per case and exits 1 if any case differs.

    python3 tools/deepspeed_schedule.py
"""
import random
import sys


def table(m, p, s):
    """Stage s's instructions, in order: ("F"|"B", mb) and exchanges (kind, mb)."""
    ops, prev = [], -1
    for t in range(2 * (m + p - 1)):
        even_t, even_s = t % 2 == 0, s % 2 == 0
        if even_t and even_s:
            mb, fwd = t // 2 - s // 2, True
        elif not even_t and not even_s:
            mb, fwd = (t - 1) // 2 - s // 2, True
        elif even_t and not even_s:
            mb, fwd = t // 2 - p + (s + 1) // 2, False
        else:
            mb, fwd = (t - 1) // 2 - p + 1 + s // 2, False
        valid = lambda k: 0 <= k < m
        if fwd and s > 0:
            if valid(mb):
                ops.append(("recv_act", mb))
            if valid(prev):
                ops.append(("send_grad", prev))
        if not fwd and s < p - 1:
            if valid(prev):
                ops.append(("send_act", prev))
            if valid(mb):
                ops.append(("recv_grad", mb))
        if valid(mb):
            ops.append(("F" if fwd else "B", mb))
        prev = mb
    return ops


PARTNER = {"send_act": (1, "recv_act"), "recv_act": (-1, "send_act"),
           "send_grad": (-1, "recv_grad"), "recv_grad": (1, "send_grad")}


def dataflow_1f1b(m, p, f, b):
    """The 1F1B order (p - 1 - s warm-up forwards on stage s, then one forward and one
    backward in turn) run as dataflow: a forward waits for the previous stage's forward
    of its micro-batch, a backward for the next stage's backward (the last stage's for
    its own forward). f and b are per-stage lists."""
    order = []
    for s in range(p):
        w = min(p - 1 - s, m)
        seq, nf = [("F", i) for i in range(w)], w
        for nb in range(m):
            if nf < m:
                seq.append(("F", nf))
                nf += 1
            seq.append(("B", nb))
        order.append(seq)
    done, t, pc = {}, [0.0] * p, [0] * p
    while any(pc[s] < len(order[s]) for s in range(p)):
        moved = False
        for s in range(p):
            while pc[s] < len(order[s]):
                op, k = order[s][pc[s]]
                if op == "F":
                    dep = ("F", s - 1, k) if s > 0 else None
                else:
                    dep = ("B", s + 1, k) if s < p - 1 else ("F", s, k)
                if dep is not None and dep not in done:
                    break
                t[s] = max(t[s], done[dep] if dep else 0.0) + (f[s] if op == "F" else b[s])
                done[(op, s, k)] = t[s]
                pc[s] += 1
                moved = True
        if not moved:
            raise RuntimeError("1F1B deadlocked")
    return max(t)


def makespan(m, p, f, b):
    """The table run with rendezvous exchanges; f and b are per-stage lists."""
    progs = [table(m, p, s) for s in range(p)]
    pc, t = [0] * p, [0.0] * p
    while any(pc[s] < len(progs[s]) for s in range(p)):
        moved = False
        for s in range(p):
            while pc[s] < len(progs[s]):
                op, k = progs[s][pc[s]]
                if op in ("F", "B"):
                    t[s] += f[s] if op == "F" else b[s]
                    pc[s] += 1
                    moved = True
                    continue
                d, other = PARTNER[op]
                q = s + d
                if pc[q] < len(progs[q]) and progs[q][pc[q]] == (other, k):
                    t[s] = t[q] = max(t[s], t[q])
                    pc[s] += 1
                    pc[q] += 1
                    moved = True
                    continue
                break
        if not moved:
            raise RuntimeError("the table deadlocked at m %d, p %d" % (m, p))
    return max(t)


def main():
    bad = 0
    for m, p in ((8, 4), (16, 4), (128, 12), (240, 35)):
        for b in (1.0, 2.0, 3.0):
            got = makespan(m, p, [1.0] * p, [b] * p)
            want = (m + p - 1) * (1.0 + b)
            bad += got != want
            print("m %3d  p %2d  F 1  B %g: table %g, dataflow 1F1B %g%s"
                  % (m, p, b, got, want, "" if got == want else "  DIFFERENT"))
    # uneven stages (a heavier first or last stage, recompute in some): the table against
    # the dataflow 1F1B of the same stage times
    rng = random.Random(1)
    for _ in range(30):
        p = rng.choice((4, 8, 12))
        m = rng.choice((p, 2 * p, 4 * p, 32))
        f = [rng.uniform(0.8, 1.3) for _ in range(p)]
        b = [x * rng.uniform(1.8, 3.2) for x in f]
        got, want = makespan(m, p, f, b), dataflow_1f1b(m, p, f, b)
        bad += abs(got - want) > 1e-9 * want
        print("m %3d  p %2d  uneven stages: table %.6f, dataflow 1F1B %.6f%s"
              % (m, p, got, want, "" if abs(got - want) <= 1e-9 * want else "  DIFFERENT"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
