# Which recorded reports a selection keeps: the lab-data tool's selection flags (--lab, --client,
# --project, --status, --type, --sample, --report, --since, --until) with the same meaning.

ISO_TIME <- "^(\\d{4})-(\\d{2})-(\\d{2})(?:[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?([Zz]|[+-]\\d{2}:?\\d{2})?)?$"

# The origin of a lab's address as the command line compares it: scheme and host lower-case, a
# default port dropped, path and query ignored.
lab_origin <- function(address) {
  parts <- regmatches(address, regexec("^\\s*([A-Za-z][A-Za-z0-9+.-]*)://(?:[^@/?#]*@)?(\\[[^]]+\\]|[^:/?#]+)(?::(\\d+))?", address, perl = TRUE))[[1]]
  scheme <- tolower(parts[2])
  if (length(parts) == 0 || !(scheme %in% c("http", "https")) || !nzchar(parts[3])) {
    stop(sprintf("lab \"%s\" is not a lab's address (http:// or https://) nor a lab's name", address), call. = FALSE)
  }
  port <- parts[4]
  default <- if (scheme == "https") "443" else "80"
  paste0(scheme, "://", tolower(parts[3]), if (nzchar(port) && port != default) paste0(":", as.integer(port)) else "")
}

# The same day and time `months` calendar months back (clamped to that month's last day), local time.
months_ago <- function(now, months) {
  lt <- as.POSIXlt(now)
  index <- (lt$year + 1900) * 12 + lt$mon - months
  year <- index %/% 12
  month <- index %% 12 + 1
  last <- as.POSIXlt(seq(as.Date(sprintf("%04d-%02d-01", year, month)), by = "month", length.out = 2)[[2]] - 1)$mday
  day <- min(lt$mday, last)
  as.POSIXct(sprintf("%04d-%02d-%02d %02d:%02d:%02d", year, month, day, lt$hour, lt$min, floor(lt$sec)), tz = "")
}

# A "since"/"until" in seconds since 1970, as the lab-data tool reads one: a date (an `until` date
# includes its day, UTC), a time with its zone, `today` (local midnight), or an age (24h, 30d, 2w,
# 1m, 1y).
selection_time <- function(value, until = FALSE) {
  name <- if (until) "until" else "since"
  if (inherits(value, "POSIXt")) {
    return(as.numeric(as.POSIXct(value)))
  }
  if (inherits(value, "Date")) {
    value <- format(value)
  }
  text <- trimws(as.character(value))
  if (length(text) != 1) {
    stop(sprintf("%s takes one date or age", name), call. = FALSE)
  }
  said <- sprintf("%s \"%s\"", name, text)
  now <- Sys.time()
  if (tolower(text) == "today") {
    return(as.numeric(as.POSIXct(format(now, "%Y-%m-%d"), tz = "")))
  }
  age <- regmatches(text, regexec("^-?\\s*(\\d{1,4})\\s*([hdwmy])$", tolower(text)))[[1]]
  if (length(age) == 3) {
    amount <- as.numeric(age[[2]])
    unit <- age[[3]]
    if (unit %in% c("h", "d", "w")) {
      hours <- amount * c(h = 1, d = 24, w = 168)[[unit]]
      return(floor(as.numeric(now)) - hours * 3600)
    }
    return(as.numeric(months_ago(now, if (unit == "m") amount else amount * 12)))
  }
  parts <- regmatches(text, regexec(ISO_TIME, text, perl = TRUE))[[1]]
  if (length(parts) == 0) {
    stop(sprintf("%s is not a date (2026-01-31), a time with its zone (2026-01-31T09:00:00Z) or an age (today, 24h, 30d, 2w, 1m, 1y)", said), call. = FALSE)
  }
  numbers <- suppressWarnings(as.integer(parts[2:7]))
  numbers[is.na(numbers)] <- 0L
  has_time <- nzchar(parts[5])
  zone <- parts[9]
  if (has_time && !nzchar(zone)) {
    stop(sprintf("%s has a time but no zone: add Z or +hh:mm (guessing one would shift it by hours)", said), call. = FALSE)
  }
  day <- as.Date(sprintf("%04d-%02d-%02d", numbers[1], numbers[2], numbers[3]), optional = TRUE)
  if (is.na(day) || format(day) != sprintf("%04d-%02d-%02d", numbers[1], numbers[2], numbers[3]) ||
    numbers[4] > 23 || numbers[5] > 59 || numbers[6] > 59) {
    stop(sprintf("%s is not a real date or time", said), call. = FALSE)
  }
  when <- as.numeric(day) * 86400 + numbers[4] * 3600 + numbers[5] * 60 + numbers[6]
  if (nzchar(zone) && toupper(zone) != "Z") {
    digits <- gsub(":", "", substring(zone, 2))
    offset <- as.integer(substr(digits, 1, 2)) * 3600 + as.integer(substr(digits, 3, 4)) * 60
    when <- if (substr(zone, 1, 1) == "+") when - offset else when + offset
  }
  if (!has_time && until) when + 86400 - 0.001 else when
}

# The rows a selection keeps: every field given must hold; several values of one field are any of them.
select_rows <- function(rows, lab = NULL, client = NULL, project = NULL, status = NULL, type = NULL,
                        sample = NULL, report = NULL, since = NULL, until = NULL) {
  keep <- rep(TRUE, nrow(rows))
  # A field the report does not record is compared as "" (as the command line compares it).
  one_of <- function(values, field) ifelse(is.na(field), "", field) %in% trimws(as.character(values))
  if (!is.null(lab)) {
    lab <- trimws(as.character(lab))
    address <- grepl("://", lab, fixed = TRUE)
    origins <- vapply(lab[address], lab_origin, character(1))
    keep <- keep & (rows$lab %in% lab[!address] | tolower(rows$origin) %in% origins)
  }
  if (!is.null(client)) keep <- keep & one_of(client, rows$client_id)
  if (!is.null(project)) keep <- keep & one_of(project, rows$project_id)
  if (!is.null(status)) keep <- keep & one_of(status, rows$status)
  if (!is.null(type)) keep <- keep & one_of(type, rows$report_type)
  if (!is.null(report)) keep <- keep & one_of(report, rows$report_id)
  if (!is.null(sample)) {
    wanted <- trimws(as.character(sample))
    keep <- keep & vapply(rows$sample_ids, function(s) any(s %in% wanted), logical(1))
  }
  if (!is.null(since) || !is.null(until)) {
    from <- if (is.null(since)) -Inf else selection_time(since)
    to <- if (is.null(until)) Inf else selection_time(until, until = TRUE)
    if (from > to) {
      stop(sprintf("since \"%s\" is after until \"%s\"", format(since), format(until)), call. = FALSE)
    }
    published <- as.numeric(parse_time(rows$published))
    keep <- keep & !is.na(published) & published >= from & published <= to
  }
  rows[keep, , drop = FALSE]
}
