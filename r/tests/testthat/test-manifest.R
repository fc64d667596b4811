# Finding the manifest as git finds its repository, and refusing one that cannot be used.

snapshot <- function(folder) {
  files <- list.files(folder, recursive = TRUE, all.files = TRUE, full.names = TRUE)
  setNames(unname(tools::md5sum(files)), files)
}

test_that("a manifest with git conflict markers is refused naming the line; nothing is written", {
  repo <- fixture_repo("packed")
  id <- manifest_entries(repo$manifest)$report_id[[1]]
  lines <- readLines(repo$manifest)
  entry <- grep("\"sha256\"", lines)[[1]]
  changed <- sub("\"bytes\": [0-9]+", "\"bytes\": 1", lines[[entry]])
  writeLines(c(lines[seq_len(entry - 1)], "<<<<<<< HEAD", lines[[entry]], "=======", changed, ">>>>>>> theirs", lines[-seq_len(entry)]), repo$manifest)
  before <- snapshot(repo$folder)
  for (call in list(
    function() reports(repo$folder),
    function() verify(repo$folder),
    function() report_path(id, folder = repo$folder)
  )) {
    error <- tryCatch(call(), labdata_manifest_error = function(e) e)
    expect_s3_class(error, "labdata_manifest_error")
    expect_identical(error$line, entry)
    expect_match(conditionMessage(error), sprintf("line %d", entry), fixed = TRUE)
    expect_match(conditionMessage(error), "conflict marker", fixed = TRUE)
    expect_match(conditionMessage(error), "lab-data merge-manifest --resolve", fixed = TRUE)
  }
  expect_identical(snapshot(repo$folder), before)
})

test_that("an unknown version and a broken entry are refused naming the line", {
  repo <- fixture_repo("packed")
  original <- readLines(repo$manifest)
  version <- grep("\"version\": 3", original, fixed = TRUE)
  writeLines(sub("\"version\": 3", "\"version\": 4", original, fixed = TRUE), repo$manifest)
  error <- tryCatch(reports(repo$folder), labdata_manifest_error = function(e) e)
  expect_identical(error$line, version)
  expect_match(conditionMessage(error), "version 4", fixed = TRUE)

  entry <- grep("\"sha256\"", original)[[2]]
  broken <- original
  broken[[entry]] <- sub("\"sha256\": \"[0-9a-f]+\"", "\"sha256\": \"not-a-hash\"", broken[[entry]])
  writeLines(broken, repo$manifest)
  error <- tryCatch(reports(repo$folder), labdata_manifest_error = function(e) e)
  expect_identical(error$line, entry)
  expect_match(conditionMessage(error), "SHA-256", fixed = TRUE)
  expect_gt(length(schema_errors(repo$manifest)), 0)

  leaving <- original
  leaving[[entry]] <- sub("\"file\": \"[^\"]+\"", "\"file\": \"../../outside.pdf\"", leaving[[entry]])
  writeLines(leaving, repo$manifest)
  error <- tryCatch(reports(repo$folder), labdata_manifest_error = function(e) e)
  expect_identical(error$line, entry)
  expect_match(conditionMessage(error), "leaves the folder", fixed = TRUE)

  torn <- original
  torn[[entry]] <- sub("\"bytes\": ", "\"bytes\" ", torn[[entry]])
  writeLines(torn, repo$manifest)
  error <- tryCatch(reports(repo$folder), labdata_manifest_error = function(e) e)
  expect_identical(error$line, entry)
  expect_match(conditionMessage(error), "not valid JSON", fixed = TRUE)
  expect_false(file.exists(file.path(repo$folder, ".lab-data", "reads.jsonl")))
})

test_that("the manifest is found like git finds its repository: folder, script's folder, working directory, lab-reports/", {
  repo <- fixture_repo("packed")
  expected <- nrow(manifest_entries(repo$manifest))
  # From a folder below the manifest's, and from the folder holding lab-reports/.
  deeper <- file.path(repo$folder, "deeper", "still")
  dir.create(deeper, recursive = TRUE)
  old <- setwd(deeper)
  on.exit(setwd(old))
  expect_equal(nrow(reports()), expected)
  parent <- tempfile("project-")
  dir.create(parent)
  file.rename(repo$folder, file.path(parent, "lab-reports"))
  setwd(parent)
  expect_equal(nrow(reports()), expected)
  expect_equal(nrow(reports(parent)), expected)
  expect_equal(nrow(reports(file.path(parent, "lab-reports", "lab-data-sync.json"))), expected)
  # A script elsewhere finds the manifest above its own folder, whatever the working directory.
  dir.create(file.path(parent, "analysis"))
  script <- file.path(parent, "analysis", "count.R")
  writeLines("cat(nrow(labdata::reports()), '\\n')", script)
  out <- run_script(script, wd = tempdir())
  expect_match(paste(out, collapse = " "), as.character(expected), fixed = TRUE)
  setwd(tempdir())
  expect_error(reports(), class = "labdata_manifest_error")
  expect_error(reports(tempdir()), "lab-data-sync.json", fixed = TRUE)
})
