# reports() on folders the packed lab-data tool and the core wrote from the mock lab.

test_that("reports() returns every recorded report with its columns, in step", {
  repo <- fixture_repo("packed")
  entries <- manifest_entries(repo$manifest)
  table <- reports(repo$folder)
  expect_s3_class(table, "data.frame")
  expect_identical(names(table), c(
    "lab", "origin", "report_id", "revision", "status", "report_type", "client_id", "project_id",
    "sample_ids", "published_at", "sha256", "bytes", "file", "path", "state"
  ))
  expect_equal(nrow(table), nrow(entries))
  expect_setequal(paste(table$report_id, table$sha256), paste(entries$report_id, entries$sha256))
  expect_type(table$sample_ids, "list")
  expect_true(all(vapply(table$sample_ids, is.character, logical(1))))
  expect_s3_class(table$published_at, "POSIXct")
  expect_identical(attr(table$published_at, "tzone"), "UTC")
  expect_false(anyNA(table$published_at))
  expect_true(all(startsWith(table$path, repo$folder)))
  expect_true(all(file.exists(table$path)))
  expect_equal(unname(vapply(table$path, sha256_of, character(1))), table$sha256)
  expect_true(all(table$state == "in step"))
  expect_true(all(table$bytes == file.size(table$path)))
  parsed <- manifest_json(repo$manifest)
  for (origin in names(parsed$labs)) {
    name <- parsed$labs[[origin]]$name %||% origin
    for (id in names(parsed$labs[[origin]]$reports)) {
      entry <- parsed$labs[[origin]]$reports[[id]]
      row <- table[table$origin == origin & table$report_id == id, ]
      expect_equal(nrow(row), 1)
      expect_identical(row$lab, name)
      expect_identical(row$file, entry$file)
      expect_identical(row$sha256, entry$sha256)
      expect_identical(row$bytes, as.numeric(entry$bytes))
      expect_identical(row$path, file.path(repo$folder, entry$file))
      expect_identical(row$revision, entry$revision %||% NA_character_)
      expect_identical(row$status, entry$status %||% NA_character_)
      expect_identical(row$report_type, entry$type %||% NA_character_)
      expect_identical(row$client_id, entry$client %||% NA_character_)
      expect_identical(row$project_id, entry$project %||% NA_character_)
      expect_identical(row$sample_ids[[1]], as.character(unlist(entry$samples)))
      expect_equal(as.numeric(row$published_at), as.numeric(as.POSIXct(entry$published_at, format = "%Y-%m-%dT%H:%M:%OS", tz = "UTC")))
    }
  }
  expect_length(schema_errors(repo$manifest), 0)
})

for (writer in c("packed", "core")) {
  test_that(sprintf("reports() of the %s case: two labs, the amended report's revision, nested folders", writer), {
    repo <- fixture_repo(writer)
    case <- repo$case
    entries <- manifest_entries(repo$manifest)
    table <- reports(repo$folder)
    expect_equal(nrow(table), case$reports)
    expect_equal(nrow(table), nrow(entries))
    expect_setequal(unique(table$lab), unlist(case$labs))
    expect_true(all(table$state == "in step"))
    expect_identical(any(grepl("/", substring(table$path, nchar(repo$folder) + 2L), fixed = TRUE)), case$nested)
    amended <- table[table$report_id == case$amended$report_id & table$lab == case$labs[[case$amended$lab]], ]
    expect_equal(nrow(amended), 1)
    expect_identical(amended$revision, case$amended$revision)
    expect_identical(amended$status, case$amended$status)
    expect_identical(amended$sha256, sha256_of(amended$path))
    expect_length(schema_errors(repo$manifest), 0)
  })
}

test_that("reports() filters by the command line's selection fields", {
  repo <- fixture_repo("packed")
  all <- reports(repo$folder)
  lab <- all$lab[[1]]
  expect_true(all(reports(repo$folder, lab = lab)$lab == lab))
  origin <- manifest_entries(repo$manifest)$origin[[1]]
  expect_equal(nrow(reports(repo$folder, lab = origin)), sum(manifest_entries(repo$manifest)$origin == origin))
  client <- all$client_id[[1]]
  expect_equal(nrow(reports(repo$folder, client = client)), sum(all$client_id == client, na.rm = TRUE))
  two <- unique(all$project_id)[1:2]
  expect_setequal(reports(repo$folder, project = two)$report_id, all$report_id[all$project_id %in% two])
  sample <- unlist(all$sample_ids)[[1]]
  picked <- reports(repo$folder, sample = sample)
  expect_true(all(vapply(picked$sample_ids, function(s) sample %in% s, logical(1))))
  expect_gte(nrow(picked), 1)
  middle <- sort(all$published_at)[[ceiling(nrow(all) / 2)]]
  since <- format(middle, "%Y-%m-%dT%H:%M:%SZ", tz = "UTC")
  expect_equal(nrow(reports(repo$folder, since = since)), sum(all$published_at >= middle))
  day <- format(middle, "%Y-%m-%d", tz = "UTC")
  until <- reports(repo$folder, until = day)
  expect_true(all(until$published_at < as.POSIXct(day, tz = "UTC") + 86400))
  expect_true(middle %in% until$published_at)
  expect_equal(nrow(reports(repo$folder, status = "amended", client = client)), sum(all$status == "amended" & all$client_id == client, na.rm = TRUE))
  expect_equal(nrow(reports(repo$folder, report = all$report_id[[2]], lab = all$lab[[2]])), 1)
  # The Python reader's names of the same filters select the same reports.
  expect_identical(reports(repo$folder, client_id = client, project_id = two)$report_id, reports(repo$folder, client = client, project = two)$report_id)
  expect_identical(reports(repo$folder, report_id = all$report_id[[2]])$report_id, reports(repo$folder, report = all$report_id[[2]])$report_id)
  type <- all$report_type[[1]]
  expect_identical(reports(repo$folder, report_type = type)$report_id, all$report_id[all$report_type == type])
})

test_that("reports() reads a 10,000-entry manifest, hashing each file once, then none", {
  repo <- fixture_repo("large")
  table <- reports(repo$folder)
  expect_equal(nrow(table), nrow(manifest_entries(repo$manifest)))
  expect_gte(nrow(table), 10000)
  expect_true(all(table$state == "in step"))
  state <- jsonlite::fromJSON(file.path(repo$folder, ".lab-data", "state.json"), simplifyVector = FALSE)
  expect_equal(sum(lengths(lapply(state$labs, function(l) l$files))), nrow(table))
  # The second read hashes nothing: every file is vouched for by its stamp, so state.json is not rewritten.
  stamp_file <- file.path(repo$folder, ".lab-data", "state.json")
  Sys.setFileTime(stamp_file, as.POSIXct("2020-01-01", tz = "UTC"))
  again <- reports(repo$folder)
  expect_true(all(again$state == "in step"))
  expect_equal(as.numeric(file.info(stamp_file)$mtime), as.numeric(as.POSIXct("2020-01-01", tz = "UTC")))
  expect_length(schema_errors(repo$manifest), 0)
})

test_that("reports() says which files are missing, changed or restorable from the cache", {
  repo <- fixture_repo("packed")
  table <- reports(repo$folder)
  cache <- tempfile("cache-")
  # A folder cache holding the first file (the lab-data tool's layout), the second not.
  held <- file.path(cache, "sha256", substr(table$sha256[[1]], 1, 2), table$sha256[[1]])
  dir.create(dirname(held), recursive = TRUE)
  file.copy(table$path[[1]], held)
  unlink(table$path[1:2])
  cat("edited", file = table$path[[3]], append = TRUE)
  withr_env(c(LAB_DATA_CACHE = cache), {
    now <- reports(repo$folder)
    expect_identical(now$state[1:3], c("restorable", "missing", "changed"))
    problems <- verify(repo$folder)
    expect_setequal(problems$report_id, table$report_id[1:3])
    expect_identical(reports(repo$folder, state = c("missing", "changed"))$report_id, table$report_id[2:3])
  })
})

test_that("verify() is empty when every recorded file is as recorded", {
  repo <- fixture_repo("packed")
  problems <- verify(repo$folder)
  expect_equal(nrow(problems), 0)
  expect_identical(names(problems), names(reports(repo$folder)))
})
