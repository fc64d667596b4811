"""Reads the reports saved beside this script, exactly as Lab Data recorded them.

Needs the `labdata` reader once: `pip install <the Lab Data repository>/python` (and `pandas` for
DataFrames). Its guide: docs/reports-in-python-and-r.md in the Lab Data repository.
"""

import labdata

# Every report the manifest (lab-data-sync.json) records, one row each: lab, report_id,
# revision, status, client_id, project_id, sample_ids, published_at, path, state, ...
reports = labdata.reports()
print(reports)

# Stop when a file is missing or is not the recorded revision (`lab-data pull` restores it).
problems = labdata.verify()
if len(problems) > 0:
    raise SystemExit(f"Saved reports are not as recorded:\n{problems}")

# The file of one report, only when it is the recorded revision:
# pdf = labdata.path("RPT-2026-000381")
