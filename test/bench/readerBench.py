"""The Python reader's figures on a 10,000-entry manifest of small files (run by readerBench.ts):
reports() against json.load + pandas.DataFrame of the same file, path() of a present stamped file,
and the first verify() (no stamps, a fresh clone) against sha256sum -c on the same files.

Each run times ours and its reference one after the other, so a ratio compares two figures taken
under the same load (the machine may be busy): the ratios are of each run's pair, and every figure
comes with its spread (the fastest and slowest run) besides its median."""

import json
import os
import statistics
import subprocess
import sys
import time

import labdata

folder = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
manifest_file = os.path.join(folder, "lab-data-sync.json")


def timed(work):
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def baseline():
    import pandas

    with open(manifest_file, encoding="utf-8") as handle:
        parsed = json.load(handle)
    rows = [
        {"origin": origin, "report_id": report_id, **entry}
        for origin, section in parsed["labs"].items()
        for report_id, entry in section["reports"].items()
    ]
    pandas.DataFrame(rows)


def fresh_reports():
    # A new process's first call: the parsed manifest is not kept from the last run.
    labdata._manifest._cache.clear()
    labdata.reports(folder)


reports_s, baseline_s = [], []
for _ in range(runs):
    reports_s.append(timed(fresh_reports))
    baseline_s.append(timed(baseline))

some = labdata.reports(folder)["report_id"].iloc[0]
labdata.path(some, folder=folder)
calls = 2000
per_call = []
for _ in range(runs):
    per_call.append(timed(lambda: [labdata.path(some, folder=folder) for _ in range(calls)]) / calls)

with open(manifest_file, encoding="utf-8") as handle:
    parsed = json.load(handle)
sums = os.path.join(os.path.dirname(folder), "SHA256SUMS")
with open(sums, "w", encoding="utf-8") as out:
    for section in parsed["labs"].values():
        for entry in section["reports"].values():
            out.write(f"{entry['sha256']}  {entry['file']}\n")
verify_s, sha256sum_s = [], []
state = os.path.join(folder, ".lab-data", "state.json")
for _ in range(runs):
    if os.path.exists(state):
        os.unlink(state)
    labdata._stamp._stamps.clear()
    verify_s.append(timed(lambda: labdata.verify(folder)))
    sha256sum_s.append(
        timed(lambda: subprocess.run(["sha256sum", "--quiet", "-c", sums], cwd=folder, check=True))
    )


def spread(values):
    return [min(values), max(values)]


reports_ratio = [ours / reference for ours, reference in zip(reports_s, baseline_s)]
verify_ratio = [ours / reference for ours, reference in zip(verify_s, sha256sum_s)]
path_ms = [seconds * 1000 for seconds in per_call]
print(
    json.dumps(
        {
            "runs": runs,
            "reports_s": statistics.median(reports_s),
            "reports_spread": spread(reports_s),
            "baseline_s": statistics.median(baseline_s),
            "baseline_spread": spread(baseline_s),
            "reports_ratio": statistics.median(reports_ratio),
            "reports_ratio_spread": spread(reports_ratio),
            "path_ms": statistics.median(path_ms),
            "path_spread": spread(path_ms),
            "verify_s": statistics.median(verify_s),
            "verify_spread": spread(verify_s),
            "sha256sum_s": statistics.median(sha256sum_s),
            "sha256sum_spread": spread(sha256sum_s),
            "verify_ratio": statistics.median(verify_ratio),
            "verify_ratio_spread": spread(verify_ratio),
            "entries": sum(len(s["reports"]) for s in parsed["labs"].values()),
        }
    )
)
