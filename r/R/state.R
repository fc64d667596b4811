# The folder's machine state beside its manifest, `.lab-data/` (git-ignored): `state.json`, the stamp
# of each file's size and time that vouches for its SHA-256 (the format the lab-data tool reads and
# writes), and `reads.jsonl`, one line per report a script read.

LOCAL_FOLDER <- ".lab-data"

local_folder <- function(folder) file.path(folder, LOCAL_FOLDER)

# `.lab-data/` with its `.gitignore` of `*`, made once, as the lab-data tool makes it.
ensure_local_folder <- function(folder) {
  local <- local_folder(folder)
  dir.create(local, showWarnings = FALSE, recursive = TRUE)
  ignore <- file.path(local, ".gitignore")
  if (!file.exists(ignore)) {
    writeLines(enc2utf8("# Lab Data: this machine\u2019s state, never committed\n*"), ignore, useBytes = TRUE)
  }
  local
}

# `state.json` as parsed lists; an absent or broken one is an empty state (it is a cache).
read_state <- function(folder) {
  file <- file.path(local_folder(folder), "state.json")
  parsed <- if (file.exists(file)) {
    tryCatch(jsonlite::fromJSON(file, simplifyVector = FALSE), error = function(e) NULL)
  }
  if (!is_object(parsed) || !identical(parsed$version, 1L) || !is_object(parsed$labs)) {
    return(list(version = 1L, labs = named_list()))
  }
  parsed
}

named_list <- function() structure(list(), names = character(0))

# Objects stay objects when written back, even when empty.
as_object <- function(x) if (length(x) == 0) named_list() else x

# Writes `state.json` through a temporary file renamed into place. Skipped (it is a cache) while the
# lab-data tool holds the folder's lock, so a pull's own record is never overwritten.
write_state <- function(folder, state) {
  local <- ensure_local_folder(folder)
  if (file.exists(file.path(local, "lock"))) {
    return(invisible(FALSE))
  }
  state$labs <- as_object(state$labs)
  for (origin in names(state$labs)) {
    state$labs[[origin]]$files <- as_object(state$labs[[origin]]$files)
  }
  text <- jsonlite::toJSON(state, auto_unbox = TRUE, digits = NA, null = "null")
  temp <- tempfile(".state-", tmpdir = local, fileext = ".part")
  ok <- tryCatch(
    {
      writeLines(text, temp, sep = "", useBytes = TRUE)
      file.rename(temp, file.path(local, "state.json"))
    },
    error = function(e) FALSE,
    warning = function(w) FALSE
  )
  if (!isTRUE(ok)) unlink(temp)
  invisible(isTRUE(ok))
}

# A file's modification time in milliseconds since 1970, as Node's `mtimeMs` gives it.
mtime_ms <- function(info) as.numeric(info$mtime) * 1000

sha256_file <- function(path) digest::digest(path, algo = "sha256", file = TRUE, serialize = FALSE)

# The state of a set of entries' files (data frame rows: origin, report_id, sha256, bytes, path):
# "in step", "changed" or "missing", and each file's SHA-256 now (NA when missing). A file whose
# size and time match the stamp (within a millisecond) is taken as recorded without hashing; any
# other present file is hashed, and a file found as recorded is stamped (state.json renewed once).
check_files <- function(folder, rows, state = read_state(folder)) {
  n <- nrow(rows)
  info <- file.info(rows$path, extra_cols = FALSE)
  present <- !is.na(info$size) & !info$isdir
  now_ms <- mtime_ms(info)
  # Each lab's stamps looked up by name once (match), not entry by entry.
  stamped <- rep(FALSE, n)
  for (origin in unique(rows$origin)) {
    files <- state$labs[[origin]]$files
    these <- which(rows$origin == origin)
    if (!is_object(files) || length(files) == 0) next
    kept <- files[match(rows$report_id[these], names(files))]
    kept_sha <- vapply(kept, function(k) if (is_object(k) && is.character(k$sha256)) k$sha256 else NA_character_, character(1))
    kept_ms <- vapply(kept, function(k) if (is_object(k) && is.numeric(k$mtime_ms)) k$mtime_ms else NA_real_, numeric(1))
    stamped[these] <- present[these] & info$size[these] == rows$bytes[these] &
      !is.na(kept_sha) & kept_sha == rows$sha256[these] & !is.na(kept_ms) & abs(kept_ms - now_ms[these]) < 1
  }
  actual <- ifelse(stamped, rows$sha256, NA_character_)
  renewed <- FALSE
  for (i in which(present & !stamped)) {
    actual[[i]] <- tryCatch(sha256_file(rows$path[[i]]), error = function(e) NA_character_)
    if (identical(actual[[i]], rows$sha256[[i]])) {
      origin <- rows$origin[[i]]
      if (!is_object(state$labs[[origin]])) {
        state$labs[[origin]] <- list(files = named_list())
      }
      state$labs[[origin]]$files[[rows$report_id[[i]]]] <- list(sha256 = actual[[i]], mtime_ms = now_ms[[i]])
      renewed <- TRUE
    }
  }
  if (renewed) {
    write_state(folder, state)
  }
  status <- ifelse(!present, "missing", ifelse(!is.na(actual) & actual == rows$sha256, "in step", "changed"))
  list(state = status, actual = actual)
}

# Records a new stamp for one file just restored.
stamp_file <- function(folder, origin, report_id, sha256, path) {
  state <- read_state(folder)
  if (!is_object(state$labs[[origin]])) {
    state$labs[[origin]] <- list(files = named_list())
  }
  state$labs[[origin]]$files[[report_id]] <- list(sha256 = sha256, mtime_ms = mtime_ms(file.info(path)))
  write_state(folder, state)
}

# The repository root of a folder: the nearest ancestor holding `.git`, else NULL.
repository_root <- function(dir) {
  dir <- normalizePath(dir, winslash = "/", mustWork = FALSE)
  repeat {
    if (file.exists(file.path(dir, ".git"))) {
      return(dir)
    }
    parent <- dirname(dir)
    if (parent == dir) {
      return(NULL)
    }
    dir <- parent
  }
}

# `path` relative to `root` with '/' separators, or NULL when it is not under it.
relative_to <- function(path, root) {
  path <- normalizePath(path, winslash = "/", mustWork = FALSE)
  root <- sub("/$", "", normalizePath(root, winslash = "/", mustWork = FALSE))
  if (startsWith(path, paste0(root, "/"))) substring(path, nchar(root) + 2L) else NULL
}

# The consumer of a read: the running script's path relative to the repository root (the nearest
# ancestor of the manifest's folder with `.git`, else the manifest's folder), or NULL when unknown.
consumer_of <- function(folder) {
  script <- script_file()
  if (is.null(script)) {
    return(NULL)
  }
  root <- repository_root(folder) %||% folder
  relative_to(script, root) %||% script
}

# Appends one line to `.lab-data/reads.jsonl`: keys sorted, one JSON object a line.
record_read <- function(folder, origin, report_id, revision, sha256) {
  line <- list(
    at = format(Sys.time(), "%Y-%m-%dT%H:%M:%OS3Z", tz = "UTC"),
    consumer = consumer_of(folder),
    lab = origin,
    report_id = report_id,
    revision = revision,
    sha256 = sha256
  )
  # Spaced as Python's json.dumps(sort_keys=True) spaces it, so both readers write the same lines.
  values <- vapply(line, function(value) {
    if (is.null(value)) "null" else as.character(jsonlite::toJSON(value, auto_unbox = TRUE))
  }, character(1))
  text <- paste0("{", paste0("\"", names(line), "\": ", values, collapse = ", "), "}")
  local <- ensure_local_folder(folder)
  connection <- file(file.path(local, "reads.jsonl"), open = "ab")
  on.exit(close(connection))
  writeBin(charToRaw(paste0(enc2utf8(as.character(text)), "\n")), connection)
  invisible(NULL)
}
