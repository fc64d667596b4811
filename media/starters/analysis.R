# Reads the reports saved beside this script, exactly as Lab Data recorded them.
#
# Needs the labdata reader once: R CMD INSTALL <the Lab Data repository>/r
# Its guide: docs/reports-in-python-and-r.md in the Lab Data repository.

library(labdata)

# Every report the manifest (lab-data-sync.json) records, one row each: lab, report_id,
# revision, status, client_id, project_id, sample_ids, published_at, path, state, ...
all <- reports()
print(all)

# Stop when a file is missing or is not the recorded revision (`lab-data pull` restores it).
stopifnot(nrow(verify()) == 0)

# The file of one report, only when it is the recorded revision:
# results <- read.csv(report_path("RPT-2026-000381"))
