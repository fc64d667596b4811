# reports()'s filters are the lab-data tool's selection flags: the fixtures say, for criteria chosen
# from what each folder records, which reports the command line's own selection keeps.

kept <- function(table) sort(paste(table$origin, table$report_id))

# The criteria of index.json as arguments: each list field a character vector, since/until text.
as_arguments <- function(criteria) lapply(criteria, function(value) as.character(unlist(value)))

for (writer in c("packed", "core")) {
  test_that(sprintf("every selection of the %s case keeps what the command line keeps", writer), {
    repo <- fixture_repo(writer)
    selections <- repo$case$selections
    expect_gte(length(selections), 10)
    for (selection in selections) {
      arguments <- as_arguments(selection$criteria)
      expected <- sort(as.character(unlist(selection$selected)))
      got <- kept(do.call(reports, c(list(repo$folder), arguments)))
      expect_identical(got, expected, label = jsonlite::toJSON(selection$criteria, auto_unbox = TRUE))
      # verify() selects the same way (all in step here: nothing to say).
      expect_equal(nrow(do.call(verify, c(list(repo$folder), arguments))), 0)
    }
  })
}

test_that("the column names select as the flag names do", {
  repo <- fixture_repo("packed")
  columns <- c(client = "client_id", project = "project_id", type = "report_type", sample = "sample_ids", report = "report_id")
  for (selection in repo$case$selections) {
    arguments <- as_arguments(selection$criteria)
    renamed <- names(arguments)
    renamed[renamed %in% names(columns)] <- columns[renamed[renamed %in% names(columns)]]
    names(arguments) <- renamed
    got <- kept(do.call(reports, c(list(repo$folder), arguments)))
    expect_identical(got, sort(as.character(unlist(selection$selected))), label = paste(renamed, collapse = ","))
  }
})

test_that("dates may be Date and POSIXct values; ages and today are read as the command line reads them", {
  repo <- fixture_repo("packed")
  all <- reports(repo$folder)
  for (selection in repo$case$selections) {
    criteria <- selection$criteria
    if (identical(names(criteria), "until") && nchar(criteria$until) == 10) {
      got <- kept(reports(repo$folder, until = as.Date(criteria$until)))
      expect_identical(got, sort(as.character(unlist(selection$selected))))
    }
  }
  # The mock lab's reports are from before this run: none is newer than an hour, all newer than 99 years.
  expect_equal(nrow(reports(repo$folder, since = "1h")), 0)
  expect_equal(nrow(reports(repo$folder, since = "today")), 0)
  expect_equal(nrow(reports(repo$folder, since = "99y")), nrow(all))
  expect_equal(nrow(reports(repo$folder, since = "-99y", until = "today")), nrow(all))
})

test_that("a selection the command line refuses is refused saying why", {
  repo <- fixture_repo("packed")
  expect_error(reports(repo$folder, colour = "red"), "unused argument")
  expect_error(reports(repo$folder, since = "2026-01-31T09:00"), "no zone")
  expect_error(reports(repo$folder, until = "2026-02-30"), "not a real date")
  expect_error(reports(repo$folder, since = "last week"), "not a date")
  expect_error(reports(repo$folder, since = "12345d"), "not a date")
  expect_error(reports(repo$folder, since = "2026-02-01", until = "2026-01-31"), "is after")
  expect_error(reports(repo$folder, lab = "ftp://lab.example.com"), "not a lab's address")
})
