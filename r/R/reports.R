# The reader's three calls: reports(), report_path(), verify(); and tar_report() for targets.

# The columns, in the order of the Python reader's DataFrame.
COLUMNS <- c(
  "lab", "origin", "report_id", "revision", "status", "report_type", "client_id", "project_id",
  "sample_ids", "published_at", "sha256", "bytes", "file", "path", "state"
)

text_or_na <- function(x) if (is.character(x) && length(x) == 1) x else NA_character_

# An ISO-8601 time (with its zone, or UTC) as POSIXct UTC; NA when it is none.
parse_time <- function(text) {
  out <- rep(NA_real_, length(text))
  ok <- !is.na(text)
  if (any(ok)) {
    t <- sub("Z$", "+0000", text[ok])
    t <- sub("([+-][0-9]{2}):([0-9]{2})$", "\\1\\2", t)
    t <- ifelse(grepl("[+-][0-9]{4}$", t), t, paste0(t, "+0000"))
    t <- sub("^([0-9]{4}-[0-9]{2}-[0-9]{2})[+-][0-9]{4}$", "\\1T00:00:00+0000", t)
    out[ok] <- as.numeric(as.POSIXct(t, format = "%Y-%m-%dT%H:%M:%OS%z", tz = "UTC"))
  }
  as.POSIXct(out, origin = "1970-01-01", tz = "UTC")
}

# Every recorded report of a manifest, one row each, state not yet known.
manifest_rows <- function(manifest) {
  parts <- lapply(manifest$labs, function(section) {
    ids <- names(section$reports)
    entries <- section$reports
    field <- function(name) vapply(entries, function(e) text_or_na(e[[name]]), character(1), USE.NAMES = FALSE)
    if (length(ids) == 0) {
      return(NULL)
    }
    data.frame(
      lab = rep(section$name, length(ids)),
      origin = rep(section$origin, length(ids)),
      report_id = ids,
      revision = field("revision"),
      status = field("status"),
      report_type = field("type"),
      client_id = field("client"),
      project_id = field("project"),
      published = field("published_at"),
      sha256 = field("sha256"),
      bytes = vapply(entries, function(e) as.numeric(e$bytes), numeric(1), USE.NAMES = FALSE),
      file = field("file"),
      stringsAsFactors = FALSE
    ) -> rows
    rows$sample_ids <- lapply(entries, function(e) as.character(unlist(e$samples)))
    rows
  })
  parts <- Filter(Negate(is.null), parts)
  if (length(parts) == 0) {
    rows <- data.frame(
      lab = character(0), origin = character(0), report_id = character(0), revision = character(0),
      status = character(0), report_type = character(0), client_id = character(0), project_id = character(0),
      published = character(0), sha256 = character(0), bytes = numeric(0), file = character(0),
      stringsAsFactors = FALSE
    )
    rows$sample_ids <- list()
    return(rows)
  }
  rows <- do.call(rbind, parts)
  rownames(rows) <- NULL
  rows$path <- file.path(normalizePath(manifest$folder, winslash = "/"), rows$file)
  rows
}

# The rows as the user sees them: the documented columns, a tibble when tibble is installed.
as_table <- function(rows) {
  out <- data.frame(
    lab = rows$lab, origin = rows$origin, report_id = rows$report_id, revision = rows$revision, status = rows$status,
    report_type = rows$report_type, client_id = rows$client_id, project_id = rows$project_id,
    stringsAsFactors = FALSE
  )
  out$sample_ids <- if (nrow(rows) == 0) list() else unname(rows$sample_ids)
  out$published_at <- parse_time(rows$published)
  out$sha256 <- rows$sha256
  out$bytes <- rows$bytes
  out$file <- rows$file
  out$path <- rows$path
  out$state <- rows$state
  rownames(out) <- NULL
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(out) else out
}

# Each row's state: "in step", "changed", "missing", or "restorable" (missing, and the folder cache
# holds its recorded bytes).
with_state <- function(manifest, rows) {
  checked <- check_files(manifest$folder, rows)
  rows$state <- checked$state
  rows$actual <- checked$actual
  missing <- rows$state == "missing"
  if (any(missing)) {
    held <- in_folder_cache(cache_location(), rows$sha256[missing], rows$bytes[missing])
    rows$state[missing][held] <- "restorable"
  }
  rows
}

#' @export
reports <- function(folder = NULL, lab = NULL, client = NULL, project = NULL, status = NULL,
                    type = NULL, sample = NULL, report = NULL, since = NULL, until = NULL,
                    state = NULL, client_id = NULL, project_id = NULL, report_type = NULL,
                    sample_ids = NULL, report_id = NULL) {
  manifest <- read_manifest(find_manifest(folder))
  # The column names are the flags' names too: either spelling selects.
  rows <- select_rows(
    manifest_rows(manifest), lab, c(client, client_id), c(project, project_id), status,
    c(type, report_type), c(sample, sample_ids), c(report, report_id), since, until
  )
  rows <- with_state(manifest, rows)
  if (!is.null(state)) {
    rows <- rows[rows$state %in% state, , drop = FALSE]
  }
  as_table(rows)
}

#' @export
verify <- function(folder = NULL, lab = NULL, client = NULL, project = NULL, status = NULL,
                   type = NULL, sample = NULL, report = NULL, since = NULL, until = NULL,
                   client_id = NULL, project_id = NULL, report_type = NULL, sample_ids = NULL,
                   report_id = NULL) {
  manifest <- read_manifest(find_manifest(folder))
  rows <- select_rows(
    manifest_rows(manifest), lab, c(client, client_id), c(project, project_id), status,
    c(type, report_type), c(sample, sample_ids), c(report, report_id), since, until
  )
  rows <- with_state(manifest, rows)
  as_table(rows[rows$state != "in step", , drop = FALSE])
}

# A folder as a person would type it in a command: relative to the working directory when under it.
shown_folder <- function(folder) {
  relative_to(folder, getwd()) %||% if (identical(normalizePath(folder, mustWork = FALSE), normalizePath(getwd()))) "." else folder
}

integrity_error <- function(row, folder, actual, why = NULL) {
  missing <- is.na(actual)
  quoted <- function(text) if (grepl("^[A-Za-z0-9_./:=@+-]+$", text)) text else shQuote(text)
  command <- sprintf(
    "lab-data pull %s --report %s%s", quoted(shown_folder(folder)), quoted(row$report_id),
    if (missing) "" else " --force"
  )
  message <- sprintf(
    "Report %s (lab %s, revision %s): %s %s. Recorded SHA-256 %s, %s. Restore it with: %s%s",
    row$report_id, row$lab, if (is.na(row$revision)) "not recorded" else row$revision,
    row$path, if (missing) "is missing" else "is not the recorded file",
    row$sha256, if (missing) "found none" else paste("found", actual),
    command,
    if (missing) paste0(" (or report_path(restore = TRUE) from the content cache", if (is.null(why)) ")" else paste0(": ", why, ")")) else ""
  )
  structure(
    class = c("labdata_integrity_error", "error", "condition"),
    list(
      message = message, call = NULL, report_id = row$report_id, lab = row$origin,
      path = row$path, expected = row$sha256, actual = actual, command = command
    )
  )
}

# The recorded row of a report whose file is as recorded (restored first when asked); the read recorded.
checked_report <- function(report_id, lab, folder, restore) {
  stopifnot(is.character(report_id), length(report_id) == 1)
  manifest <- read_manifest(find_manifest(folder))
  rows <- manifest_rows(manifest)
  rows <- rows[rows$report_id == report_id, , drop = FALSE]
  if (!is.null(lab)) {
    rows <- select_rows(rows, lab = lab)
  }
  if (nrow(rows) == 0) {
    stop(structure(
      class = c("labdata_not_recorded", "error", "condition"),
      list(message = sprintf("Report %s is not recorded in %s%s.", report_id, manifest$file,
        if (is.null(lab)) "" else paste0(" for lab ", paste(lab, collapse = ", "))), call = NULL)
    ))
  }
  if (nrow(rows) > 1) {
    stop(structure(
      class = c("labdata_ambiguous_report", "error", "condition"),
      list(message = sprintf(
        "Report %s is recorded by %d labs (%s): say which with lab = one of them.",
        report_id, nrow(rows), paste(sprintf("%s, %s", rows$lab, rows$origin), collapse = "; ")
      ), call = NULL)
    ))
  }
  checked <- check_files(manifest$folder, rows)
  row <- rows[1, ]
  actual <- checked$actual[[1]]
  if (checked$state[[1]] == "missing" && isTRUE(restore)) {
    why <- restore_from_cache(row$path, row$sha256)
    if (is.null(why)) {
      actual <- row$sha256
      checked$state[[1]] <- "in step"
      stamp_file(manifest$folder, row$origin, row$report_id, row$sha256, row$path)
    } else {
      stop(integrity_error(row, manifest$folder, NA_character_, why))
    }
  }
  if (checked$state[[1]] != "in step") {
    stop(integrity_error(row, manifest$folder, actual))
  }
  record_read(manifest$folder, row$origin, row$report_id, if (is.na(row$revision)) NULL else row$revision, row$sha256)
  row
}

#' @export
report_path <- function(report_id, lab = NULL, folder = NULL, restore = FALSE) {
  checked_report(report_id, lab, folder, restore)$path
}

#' @export
tar_report <- function(report_id, lab = NULL, folder = NULL, restore = FALSE) {
  row <- checked_report(report_id, lab, folder, restore)
  c(path = row$path, sha256 = row$sha256, revision = row$revision)
}
