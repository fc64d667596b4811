# report_path(): the recorded file or a labdata_integrity_error; restore from the caches, never a lab.

test_that("report_path() returns a present file and renews the stamp in the lab-data tool's format", {
  repo <- fixture_repo("packed")
  table <- reports(repo$folder)
  id <- table$report_id[[1]]
  origin <- manifest_entries(repo$manifest)$origin[manifest_entries(repo$manifest)$report_id == id][[1]]
  unlink(file.path(repo$folder, ".lab-data", "state.json"))
  path <- report_path(id, lab = table$lab[[1]], folder = repo$folder)
  expect_identical(path, table$path[[1]])
  state <- jsonlite::fromJSON(file.path(repo$folder, ".lab-data", "state.json"), simplifyVector = FALSE)
  expect_identical(state$version, 1L)
  stamp <- state$labs[[origin]]$files[[id]]
  expect_identical(stamp$sha256, table$sha256[[1]])
  expect_lt(abs(stamp$mtime_ms - as.numeric(file.info(path)$mtime) * 1000), 1)
  expect_identical(readLines(file.path(repo$folder, ".lab-data", ".gitignore"))[[2]], "*")
  # The stamp vouches for the file from now on: a same-sized edit that keeps the time is not read.
  before <- file.info(path)$mtime
  bytes <- readBin(path, "raw", file.size(path))
  bytes[[1]] <- as.raw(bitwXor(as.integer(bytes[[1]]), 1L))
  writeBin(bytes, path)
  Sys.setFileTime(path, before)
  expect_identical(report_path(id, lab = table$lab[[1]], folder = repo$folder), path)
  # A time that moves makes it hashed: the edit is found.
  Sys.setFileTime(path, before + 10)
  expect_error(report_path(id, lab = table$lab[[1]], folder = repo$folder), class = "labdata_integrity_error")
})

test_that("a changed file is a labdata_integrity_error naming both SHA-256s and lab-data pull", {
  repo <- fixture_repo("packed")
  table <- reports(repo$folder)
  cat("tampered", file = table$path[[2]], append = TRUE)
  error <- tryCatch(report_path(table$report_id[[2]], lab = table$lab[[2]], folder = repo$folder), labdata_integrity_error = function(e) e)
  expect_s3_class(error, "labdata_integrity_error")
  expect_identical(error$report_id, table$report_id[[2]])
  expect_identical(error$expected, table$sha256[[2]])
  expect_identical(error$actual, sha256_of(table$path[[2]]))
  message <- conditionMessage(error)
  expect_match(message, table$report_id[[2]], fixed = TRUE)
  expect_match(message, table$sha256[[2]], fixed = TRUE)
  expect_match(message, sha256_of(table$path[[2]]), fixed = TRUE)
  expect_match(message, "lab-data pull", fixed = TRUE)
  expect_match(error$command, "--force", fixed = TRUE)
  reads <- reads_lines(repo$folder)
  expect_false(any(vapply(reads, function(r) identical(r$report_id, table$report_id[[2]]), logical(1))))
})

test_that("a missing file is a labdata_integrity_error naming lab-data pull; restore = TRUE without a cache copy changes nothing", {
  repo <- fixture_repo("packed")
  table <- reports(repo$folder)
  unlink(table$path[[3]])
  old <- setwd(repo$root)
  on.exit(setwd(old))
  withr_env(c(LAB_DATA_CACHE = tempfile("empty-cache-")), {
    error <- tryCatch(report_path(table$report_id[[3]], lab = table$lab[[3]], folder = repo$folder), labdata_integrity_error = function(e) e)
    expect_s3_class(error, "labdata_integrity_error")
    expect_identical(error$expected, table$sha256[[3]])
    expect_true(is.na(error$actual))
    expect_match(conditionMessage(error), "is missing", fixed = TRUE)
    expect_match(conditionMessage(error), sprintf("lab-data pull %s --report %s", basename(repo$folder), table$report_id[[3]]), fixed = TRUE)
    again <- tryCatch(report_path(table$report_id[[3]], lab = table$lab[[3]], folder = repo$folder, restore = TRUE), labdata_integrity_error = function(e) e)
    expect_s3_class(again, "labdata_integrity_error")
    expect_match(conditionMessage(again), "does not hold it", fixed = TRUE)
    expect_false(file.exists(table$path[[3]]))
    expect_length(list.files(dirname(table$path[[3]]), pattern = "\\.part$", all.files = TRUE), 0)
  })
})

test_that("restore = TRUE restores a deleted file from the folder cache the lab-data tool filled, with no lab running", {
  repo <- fixture_repo("packed")
  cache <- fixture_folder_cache()
  table <- reports(repo$folder)
  unlink(table$path[[1]])
  withr_env(c(LAB_DATA_CACHE = cache), {
    expect_identical(reports(repo$folder)$state[[1]], "restorable")
    path <- report_path(table$report_id[[1]], lab = table$lab[[1]], folder = repo$folder, restore = TRUE)
  })
  expect_identical(path, table$path[[1]])
  expect_identical(sha256_of(path), table$sha256[[1]])
  expect_identical(reports(repo$folder)$state[[1]], "in step")
})

test_that("a cached copy whose bytes are not the recorded SHA-256 never takes the file's name", {
  repo <- fixture_repo("packed")
  table <- reports(repo$folder)
  cache <- tempfile("corrupt-cache-")
  held <- file.path(cache, "sha256", substr(table$sha256[[1]], 1, 2), table$sha256[[1]])
  dir.create(dirname(held), recursive = TRUE)
  writeBin(charToRaw(strrep("x", table$bytes[[1]])), held)
  unlink(table$path[[1]])
  withr_env(c(LAB_DATA_CACHE = cache), {
    error <- tryCatch(report_path(table$report_id[[1]], lab = table$lab[[1]], folder = repo$folder, restore = TRUE), labdata_integrity_error = function(e) e)
  })
  expect_s3_class(error, "labdata_integrity_error")
  expect_match(conditionMessage(error), "not the recorded file", fixed = TRUE)
  expect_false(file.exists(table$path[[1]]))
  expect_length(list.files(dirname(table$path[[1]]), pattern = "\\.part$", all.files = TRUE), 0)
})

test_that("restore = TRUE restores from the nginx team cache with its token, and not with a wrong one", {
  repo <- fixture_repo("packed")
  team <- fixture_team_cache()
  table <- reports(repo$folder)
  unlink(table$path[[2]])
  withr_env(c(LAB_DATA_CACHE = team$address, LAB_DATA_CACHE_TOKEN = "not-the-token"), {
    refused <- tryCatch(report_path(table$report_id[[2]], lab = table$lab[[2]], folder = repo$folder, restore = TRUE), labdata_integrity_error = function(e) e)
    expect_s3_class(refused, "labdata_integrity_error")
    expect_false(grepl("not-the-token", conditionMessage(refused), fixed = TRUE))
    expect_false(file.exists(table$path[[2]]))
  })
  withr_env(c(LAB_DATA_CACHE = team$address, LAB_DATA_CACHE_TOKEN = team$token), {
    path <- report_path(table$report_id[[2]], lab = table$lab[[2]], folder = repo$folder, restore = TRUE)
  })
  expect_identical(sha256_of(path), table$sha256[[2]])
  expect_identical(reports(repo$folder)$state[[2]], "in step")
})

test_that("restore = TRUE follows no redirect of the team cache and says so", {
  repo <- fixture_repo("packed")
  team <- fixture_team_cache()
  redirect <- fixtures_index()$team_cache$redirect_url
  table <- reports(repo$folder)
  unlink(table$path[[2]])
  # It redirects to the token's own address under another host name, which holds the file:
  # following it would restore the file.
  withr_env(c(LAB_DATA_CACHE = redirect, LAB_DATA_CACHE_TOKEN = team$token), {
    refused <- tryCatch(
      report_path(table$report_id[[2]], lab = table$lab[[2]], folder = repo$folder, restore = TRUE),
      labdata_integrity_error = function(e) e
    )
  })
  expect_s3_class(refused, "labdata_integrity_error")
  expect_match(conditionMessage(refused), "redirects to localhost:[0-9]+, which is not followed")
  expect_false(grepl(team$token, conditionMessage(refused), fixed = TRUE))
  expect_false(file.exists(table$path[[2]]))
  expect_length(list.files(dirname(table$path[[2]]), pattern = "[.]part$", all.files = TRUE), 0)
})

test_that("the team cache's credentials come from ~/.netrc when LAB_DATA_CACHE_TOKEN is not set", {
  repo <- fixture_repo("packed")
  team <- fixture_team_cache()
  table <- reports(repo$folder)
  unlink(table$path[[1]])
  netrc <- tempfile("netrc-")
  host <- sub("^[a-z]+://([^:/]+).*$", "\\1", team$netrc_address)
  writeLines(sprintf("machine %s login %s password %s", host, team$login, team$password), netrc)
  env <- c(LAB_DATA_CACHE = team$netrc_address, LAB_DATA_CACHE_TOKEN = "", NETRC = netrc)
  restore <- function() {
    report_path(table$report_id[[1]], lab = table$lab[[1]], folder = repo$folder, restore = TRUE)
  }
  # The command line's rules: a file others may read gives no credentials, and says so.
  Sys.chmod(netrc, "644")
  refused <- withr_env(env, tryCatch(restore(), labdata_integrity_error = function(e) e))
  expect_s3_class(refused, "labdata_integrity_error")
  expect_match(conditionMessage(refused), "is readable by others (mode 0644): chmod 600", fixed = TRUE)
  expect_false(grepl(team$password, conditionMessage(refused), fixed = TRUE))
  # Its default entry is never used: a default login would go to any host.
  writeLines(sprintf("default login %s password %s", team$login, team$password), netrc)
  Sys.chmod(netrc, "600")
  refused <- withr_env(env, tryCatch(restore(), labdata_integrity_error = function(e) e))
  expect_match(conditionMessage(refused), "its default entry is not used for the team cache", fixed = TRUE)
  expect_false(file.exists(table$path[[1]]))
  writeLines(sprintf("machine %s login %s password %s", host, team$login, team$password), netrc)
  path <- withr_env(env, restore())
  expect_identical(sha256_of(path), table$sha256[[1]])
})

test_that("a team cache address that would leak a token or leave its prefix is refused", {
  expect_null(labdata:::cache_address_problem("https://cache.example.com/lab-data"))
  expect_null(labdata:::cache_address_problem("http://127.0.0.1:8080/lab-data"))
  expect_match(labdata:::cache_address_problem("http://cache.example.com/lab-data"), "https://", fixed = TRUE)
  expect_match(labdata:::cache_address_problem("https://u:p@cache.example.com/x"), "LAB_DATA_CACHE_TOKEN", fixed = TRUE)
  expect_match(labdata:::cache_address_problem("https://cache.example.com/x?token=1"), "query", fixed = TRUE)
  expect_match(labdata:::cache_address_problem("https://cache.example.com/a/%2e%2e/b"), "..", fixed = TRUE)
  expect_identical(labdata:::netrc_credentials("machine a login x password y\ndefault login d password e", "A"), list(login = "x", password = "y"))
  expect_null(labdata:::netrc_credentials("machine a login x password y", "b"))
  expect_true(isTRUE(attr(labdata:::netrc_credentials("machine a login x password y\ndefault login d password e", "b"), "has_default")))
})

test_that("an id two labs record needs lab =", {
  repo <- fixture_repo("packed")
  entries <- manifest_entries(repo$manifest)
  shared <- unlist(repo$case$shared_ids)
  expect_gte(length(shared), 1)
  id <- shared[[1]]
  expect_error(report_path(id, folder = repo$folder), class = "labdata_ambiguous_report")
  both <- entries[entries$report_id == id, ]
  for (i in seq_len(nrow(both))) {
    path <- report_path(id, lab = both$origin[[i]], folder = repo$folder)
    expect_identical(path, file.path(repo$folder, both$file[[i]]))
    expect_identical(sha256_of(path), both$sha256[[i]])
  }
  expect_error(report_path("NO-SUCH-REPORT", folder = repo$folder), class = "labdata_not_recorded")
})

test_that("tar_report() gives the checked path, the recorded SHA-256 and revision for a targets dependency", {
  repo <- fixture_repo("packed")
  table <- reports(repo$folder)
  got <- tar_report(table$report_id[[1]], lab = table$lab[[1]], folder = repo$folder)
  expect_identical(unname(got[["path"]]), table$path[[1]])
  expect_identical(unname(got[["sha256"]]), table$sha256[[1]])
  expect_identical(unname(got[["revision"]]), table$revision[[1]])
})
