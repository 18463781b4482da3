#!/usr/bin/env python3
"""tools/fit-published.py and tools/loso.py report a fitted knob that ends on its physical
bound (tools/knob_bounds.py), against a stand-in `tandem` whose error surface is known.

The stand-in answers `validate --json` with a MAPE that is a sum of squares in the knobs,
minimal at gemm_efficiency 0.95 (above the H100 MAMF bound 0.803, so the fit must stop at
0.803), mem_traffic_factor 5 (above its bound 3) and comm_compute_slowdown 0.05 (inside
[0, 0.15]). So the fit ends with the first two on their upper bounds, reported, and the
third inside, not reported. loso.py over a grid mem_traffic_factor=2,3 picks 3 (the
per-row error |mtf - 5| is smaller there), which is both its grid edge and the bound."""
import json, os, stat, subprocess, sys, tempfile

ROOT = os.environ.get("TANDEM_SOURCE_ROOT",
                      os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TOOLS = os.path.join(ROOT, "tools")

STUB = r'''#!/usr/bin/env python3
import json, sys
p = {"gemm_efficiency": 0.7, "mem_traffic_factor": 2.0, "comm_compute_slowdown": 0.02}
args = sys.argv[1:]
for i, a in enumerate(args):
    if a == "--cost":
        k, v = args[i + 1].split("=")
        p[k] = float(v)
m = (100 * (p["gemm_efficiency"] - 0.95) ** 2 + (p["mem_traffic_factor"] - 5) ** 2
     + 100 * (p["comm_compute_slowdown"] - 0.05) ** 2)
err = abs(p["mem_traffic_factor"] - 5)
rows = [{"row_id": 1, "err_pct": err}, {"row_id": 2, "err_pct": -err}]
print(json.dumps({"summary": {"mape_pct": m}, "rows": rows}))
'''

fails = 0
def check(cond, what):
    global fails
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        fails += 1

with tempfile.TemporaryDirectory() as d:
    stub = os.path.join(d, "tandem")
    with open(stub, "w") as f:
        f.write(STUB)
    os.chmod(stub, os.stat(stub).st_mode | stat.S_IXUSR)
    csv = os.path.join(d, "runs.csv")
    with open(csv, "w") as f:
        f.write("row_id,source,framework\n1,Paper A (2024),Stack A\n2,Paper B,Stack B\n")

    out = subprocess.run([sys.executable, os.path.join(TOOLS, "fit-published.py"),
                          "--tandem", stub, "--csv", csv, "--gpu-type", "H100",
                          "--knobs", "gemm_efficiency,mem_traffic_factor,comm_compute_slowdown",
                          "--rounds", "20", "--start", "gemm_efficiency=0.7",
                          "mem_traffic_factor=2", "comm_compute_slowdown=0.02"],
                         capture_output=True, text=True, check=True).stdout
    js = json.loads(out[out.index("\n{") + 1:])
    at = {b["knob"]: b for b in js["at_bound"]}
    check(abs(js["params"]["gemm_efficiency"] - 0.803) < 1e-9, "gemm stops at the H100 MAMF 0.803")
    check(at.get("gemm_efficiency", {}).get("side") == "upper", "gemm reported at its upper bound")
    check(abs(js["params"]["mem_traffic_factor"] - 3.0) < 1e-9, "mem_traffic_factor stops at 3")
    check(at.get("mem_traffic_factor", {}).get("bound") == 3.0, "mem_traffic_factor reported at 3")
    check("comm_compute_slowdown" not in at, "an interior optimum is not reported")
    check(abs(js["params"]["comm_compute_slowdown"] - 0.05) < 0.01, "slowdown near its optimum 0.05")
    check("note: mem_traffic_factor=3 is at its upper bound 3" in out, "text names the bound")

    out = subprocess.run([sys.executable, os.path.join(TOOLS, "loso.py"), "--tandem", stub,
                          "--csv", csv, "--gpu-type", "H100",
                          "--grid", "mem_traffic_factor=2,3"],
                         capture_output=True, text=True, check=True).stdout
    check("in-sample MAPE 2.00% at mem_traffic_factor=3" in out, "loso fits 3 (error |3 - 5| = 2)")
    check("mem_traffic_factor=3 is at the edge of its grid" in out, "loso flags the grid edge")
    check("mem_traffic_factor=3 is at its upper bound 3" in out, "loso flags the physical bound")

    out = subprocess.run([sys.executable, os.path.join(TOOLS, "fit-published.py"),
                          "--gpu-type", "A100", "--list-knobs"],
                         capture_output=True, text=True, check=True).stdout
    check("gemm_efficiency        [0.45, 0.869]" in out, "A100 GEMM bound is its MAMF 0.869")
    check(len(out.strip().splitlines()) == 9, "nine knobs listed, each with a bound and source")

sys.exit(1 if fails else 0)
