# .lab-data/reads.jsonl: one line per successful report_path(), naming the consumer.

test_that("a script's reads are recorded with its path relative to the repository", {
  repo <- fixture_repo("packed")
  table <- reports(repo$folder)
  dir.create(file.path(repo$root, "analysis", "figures"), recursive = TRUE)
  script <- file.path(repo$root, "analysis", "figures", "plot.R")
  writeLines(c(
    sprintf("p <- labdata::report_path(%s, lab = %s)", deparse(table$report_id[[1]]), deparse(table$lab[[1]])),
    sprintf("q <- labdata::report_path(%s, lab = %s)", deparse(table$report_id[[2]]), deparse(table$lab[[2]])),
    "stopifnot(file.exists(p), file.exists(q))"
  ), script)
  run_script(script, wd = tempdir())
  lines <- readLines(file.path(repo$folder, ".lab-data", "reads.jsonl"))
  expect_length(lines, 2)
  for (i in 1:2) {
    read <- jsonlite::fromJSON(lines[[i]], simplifyVector = FALSE)
    expect_identical(names(read), sort(names(read)))
    expect_identical(names(read), c("at", "consumer", "lab", "report_id", "revision", "sha256"))
    expect_identical(read$consumer, "analysis/figures/plot.R")
    expect_identical(read$report_id, table$report_id[[i]])
    expect_identical(read$sha256, table$sha256[[i]])
    expect_identical(read$revision, if (is.na(table$revision[[i]])) NULL else table$revision[[i]])
    origin <- manifest_entries(repo$manifest)
    expect_true(read$lab %in% origin$origin)
    expect_match(read$at, "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$")
  }
  expect_match(lines[[1]], "^\\{\"at\": \"")
})

test_that("an interactive read records a null consumer; a knitr document records its input", {
  repo <- fixture_repo("packed")
  table <- reports(repo$folder)
  # A session with no script (R at a prompt, Rscript -e): no consumer to name.
  code <- sprintf("invisible(labdata::report_path(%s, lab = %s, folder = %s))", deparse(table$report_id[[1]]), deparse(table$lab[[1]]), deparse(repo$folder))
  system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", "-e", shQuote(code)),
    env = paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)))
  first <- reads_lines(repo$folder)[[1]]
  expect_identical(first$report_id, table$report_id[[1]])
  expect_null(first$consumer)
  expect_match(readLines(file.path(repo$folder, ".lab-data", "reads.jsonl"))[[1]], "\"consumer\": null", fixed = TRUE)
  skip_if_not_installed("knitr")
  document <- file.path(repo$root, "notes", "summary.Rmd")
  dir.create(dirname(document))
  writeLines(c(
    "```{r}",
    sprintf("p <- labdata::report_path(%s, lab = %s, folder = %s)", deparse(table$report_id[[2]]), deparse(table$lab[[2]]), deparse(repo$folder)),
    "```"
  ), document)
  script <- tempfile("knit-", fileext = ".R")
  writeLines(sprintf("knitr::knit(%s, output = tempfile(fileext = '.md'), quiet = TRUE)", deparse(document)), script)
  run_script(script, wd = tempdir())
  reads <- reads_lines(repo$folder)
  expect_length(reads, 2)
  expect_identical(reads[[2]]$consumer, "notes/summary.Rmd")
})
