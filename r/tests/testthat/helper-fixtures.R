# The folders the tests read: written by the packed lab-data tool and the extension's core from the
# mock lab (test/readers/makeFixtures.ts, run by scripts/test-r.mjs), described by their index.json.

fixtures_dir <- function() {
  dir <- Sys.getenv("LABDATA_FIXTURES")
  if (!nzchar(dir) || !file.exists(file.path(dir, "index.json"))) {
    testthat::skip("LABDATA_FIXTURES names no generated fixtures (run node scripts/test-r.mjs)")
  }
  dir
}

fixtures_index <- function() {
  jsonlite::fromJSON(file.path(fixtures_dir(), "index.json"), simplifyVector = FALSE)
}

# A fresh copy of a generated repository (tests change files freely): list(root, folder, manifest).
copy_repository <- function(source, folder) {
  target <- tempfile("repo-")
  dir.create(target)
  file.copy(list.files(source, all.files = TRUE, no.. = TRUE, full.names = TRUE), target, recursive = TRUE, copy.date = TRUE)
  relative <- substring(normalizePath(folder), nchar(normalizePath(source)) + 2L)
  folder <- if (nzchar(relative)) file.path(target, relative) else target
  list(root = normalizePath(target), folder = normalizePath(folder), manifest = file.path(normalizePath(folder), "lab-data-sync.json"))
}

# The manifest as jsonlite reads it, for the tests' own expectations.
manifest_json <- function(file) jsonlite::fromJSON(file, simplifyVector = FALSE)

# Every entry of a manifest: a data frame of origin, report_id and the entry's fields.
manifest_entries <- function(file) {
  parsed <- manifest_json(file)
  rows <- list()
  for (origin in names(parsed$labs)) {
    for (id in names(parsed$labs[[origin]]$reports)) {
      entry <- parsed$labs[[origin]]$reports[[id]]
      rows[[length(rows) + 1]] <- data.frame(
        origin = origin, name = parsed$labs[[origin]]$name %||% origin, report_id = id,
        file = entry$file, sha256 = entry$sha256, bytes = entry$bytes,
        revision = entry$revision %||% NA_character_, stringsAsFactors = FALSE
      )
    }
  }
  do.call(rbind, rows)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# What the published JSON Schema (docs/lockfile.schema.json) finds wrong with manifests: ajv, the
# validator the TypeScript tests use, through the same compiled helper (test/support/lockfileSchema.ts).
schema_errors <- function(files) {
  root <- Sys.getenv("LABDATA_ROOT")
  helper <- file.path(root, "out", "test", "support", "lockfileSchema.js")
  if (!file.exists(helper)) {
    testthat::skip("the compiled out/ is missing (LABDATA_ROOT)")
  }
  script <- sprintf(
    "const { lockfileSchemaErrors } = require(%s); const fs = require('fs'); for (const f of process.argv.slice(1)) { for (const e of lockfileSchemaErrors(fs.readFileSync(f, 'utf8'))) console.log(f + ': ' + e); }",
    jsonlite::toJSON(helper, auto_unbox = TRUE)
  )
  out <- system2("node", c("-e", shQuote(script), shQuote(files)), stdout = TRUE, stderr = TRUE)
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) stop(paste(out, collapse = "\n"))
  out
}

# Runs an R script file in a fresh R (Rscript), with this package's library; returns its output.
run_script <- function(script, wd = dirname(script), env = character()) {
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  old <- setwd(wd)
  on.exit(setwd(old))
  out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)),
    stdout = TRUE, stderr = TRUE, env = c(paste0("R_LIBS=", libs), env))
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) stop(paste(c("Rscript failed:", out), collapse = "\n"))
  out
}

sha256_of <- function(path) digest::digest(path, algo = "sha256", file = TRUE, serialize = FALSE)

reads_lines <- function(folder) {
  file <- file.path(folder, ".lab-data", "reads.jsonl")
  if (!file.exists(file)) return(list())
  lapply(readLines(file), jsonlite::fromJSON, simplifyVector = FALSE)
}

# Runs `code` with environment variables set, then puts them back.
withr_env <- function(vars, code) {
  old <- Sys.getenv(names(vars), unset = NA, names = TRUE)
  do.call(Sys.setenv, as.list(vars))
  on.exit({
    for (name in names(old)) if (is.na(old[[name]])) Sys.unsetenv(name) else do.call(Sys.setenv, setNames(list(old[[name]]), name))
  })
  force(code)
}

# A fresh copy of one generated case: "packed" (the packed lab-data tool: two labs sharing ids,
# nested names, an amendment, a folder cache, pushed to the team cache), "core" (the extension's
# core: two labs, deeper names, an amendment) or "large" (10,000 entries).
fixture_repo <- function(name) {
  case <- fixtures_index()$cases[[name]]
  if (is.null(case)) stop(sprintf("index.json has no case %s", name))
  copy <- copy_repository(case$repo, case$folder)
  c(copy, list(case = case))
}

# The folder cache the packed tool filled as it synced (LAB_DATA_CACHE=DIR).
fixture_folder_cache <- function() {
  cache <- fixtures_index()$cases$packed$folder_cache
  if (is.null(cache)) stop("index.json names no folder cache")
  cache
}

# The nginx team cache, up while the tests run: skipped only where nginx is not installed.
fixture_team_cache <- function() {
  team <- fixtures_index()$team_cache
  if (is.null(team)) testthat::skip("no nginx: the generator started no team cache")
  list(address = team$url, token = team$token, netrc_address = team$netrc_url,
    login = team$netrc_login, password = team$netrc_password)
}
