# Finding and reading a folder's manifest, `lab-data-sync.json` version 3 (docs/lockfile.md).
# Strict: conflict markers, an unknown version or a broken entry stop with a message naming the
# line; nothing is written then.

MANIFEST_FILE <- "lab-data-sync.json"
LOCKFILE_VERSION <- 3L
SHA256_SHAPE <- "^[0-9a-f]{64}$"

# A problem with a manifest: a condition of class `labdata_manifest_error`.
manifest_error <- function(file, line, problem) {
  where <- if (is.na(line)) file else sprintf("%s, line %d", file, line)
  message <- sprintf("%s: %s. Nothing was written.", where, problem)
  structure(
    class = c("labdata_manifest_error", "error", "condition"),
    list(message = message, call = NULL, file = file, line = line)
  )
}

# The script running now, if known: `Rscript FILE` / `R -f FILE` (commandArgs --file=), a document
# knitr is rendering, or a file source() is reading.
script_file <- function() {
  if ("knitr" %in% loadedNamespaces()) {
    input <- tryCatch(knitr::current_input(dir = TRUE), error = function(e) NULL)
    if (is.character(input) && length(input) == 1 && nzchar(input)) {
      return(normalizePath(input, winslash = "/", mustWork = FALSE))
    }
  }
  for (frame in rev(sys.frames())) {
    ofile <- frame$ofile
    if (is.character(ofile) && length(ofile) == 1 && file.exists(ofile)) {
      return(normalizePath(ofile, winslash = "/"))
    }
  }
  given <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(given) > 0) {
    file <- sub("^--file=", "", given[[1]])
    file <- gsub("~\\+~", " ", file)
    if (file.exists(file)) {
      return(normalizePath(file, winslash = "/"))
    }
  }
  NULL
}

# The manifest at or under a folder: the folder's own, or its `lab-reports/` one.
manifest_in <- function(dir) {
  for (candidate in c(file.path(dir, MANIFEST_FILE), file.path(dir, "lab-reports", MANIFEST_FILE))) {
    if (file.exists(candidate) && !dir.exists(candidate)) {
      return(normalizePath(candidate, winslash = "/"))
    }
  }
  NULL
}

# The nearest manifest at or above `dir`, as git finds its repository.
manifest_above <- function(dir) {
  dir <- normalizePath(dir, winslash = "/", mustWork = FALSE)
  repeat {
    found <- manifest_in(dir)
    if (!is.null(found)) {
      return(found)
    }
    parent <- dirname(dir)
    if (parent == dir) {
      return(NULL)
    }
    dir <- parent
  }
}

# The manifest to read: `folder`'s (a folder, its lab-reports/, or the file itself), else the
# nearest at or above the running script's folder, else at or above the working directory.
find_manifest <- function(folder = NULL) {
  if (!is.null(folder)) {
    folder <- path.expand(folder)
    if (!dir.exists(folder) && basename(folder) == MANIFEST_FILE && file.exists(folder)) {
      return(normalizePath(folder, winslash = "/"))
    }
    found <- if (dir.exists(folder)) manifest_in(folder) else NULL
    if (is.null(found)) {
      stop(structure(
        class = c("labdata_manifest_error", "error", "condition"),
        list(
          message = sprintf(
            "No %s in %s (nor in its lab-reports/): give the folder a Lab Data sync or lab-data pull wrote.",
            MANIFEST_FILE, folder
          ),
          call = NULL, file = folder, line = NA_integer_
        )
      ))
    }
    return(found)
  }
  starts <- c(dirname(script_file() %||% getwd()), getwd())
  for (start in unique(starts)) {
    found <- manifest_above(start)
    if (!is.null(found)) {
      return(found)
    }
  }
  stop(structure(
    class = c("labdata_manifest_error", "error", "condition"),
    list(
      message = sprintf(
        "No %s at or above %s (nor in a lab-reports/ folder there): pass folder = the folder Lab Data saved the reports in.",
        MANIFEST_FILE, paste(unique(starts), collapse = " or ")
      ),
      call = NULL, file = NA_character_, line = NA_integer_
    )
  ))
}

`%||%` <- function(a, b) if (is.null(a)) b else a

is_object <- function(x) is.list(x) && (length(x) == 0 || !is.null(names(x)))

# The line (1-based) of `lines` that first holds `needle`, from line `from` on; NA when none does.
line_of <- function(lines, needle, from = 1L) {
  if (from > length(lines)) {
    return(NA_integer_)
  }
  hit <- which(grepl(needle, lines[from:length(lines)], fixed = TRUE))
  if (length(hit) == 0) NA_integer_ else from - 1L + hit[[1]]
}

# Why one line of a manifest that does not parse is the broken one, or NULL when it parses: an entry
# line (`"ID": {…},`) or a structural line is parsed alone.
broken_line <- function(line) {
  text <- sub(",\\s*$", "", trimws(line))
  if (!nzchar(text) || text %in% c("{", "}", "[", "]", "},", "],")) {
    return(NULL)
  }
  if (grepl("^\"", text) && grepl(":\\s*\\{\\s*$", text)) {
    text <- paste0(text, "}")
  }
  tryCatch(
    {
      jsonlite::fromJSON(paste0("{", text, "}"), simplifyVector = FALSE)
      NULL
    },
    error = function(e) conditionMessage(e)
  )
}

# Why an entry's file name cannot be used (it would leave the folder), or NULL: the CLI's rules.
file_name_problem <- function(name) {
  if (!is.character(name) || length(name) != 1 || is.na(name) || !nzchar(name)) {
    return("it has no file name")
  }
  if (grepl("^[A-Za-z]:", name) || startsWith(name, "/") || startsWith(name, "\\")) {
    return("its file name is an absolute path")
  }
  if (grepl("\\", name, fixed = TRUE)) {
    return("its file name contains a backslash")
  }
  segments <- strsplit(name, "/", fixed = TRUE)[[1]]
  if (endsWith(name, "/") || any(segments %in% c("", ".", ".."))) {
    return("its file name leaves the folder or has an empty part")
  }
  if (any(grepl("[[:cntrl:]]", segments))) {
    return("its file name has a control character")
  }
  if (tolower(name) == MANIFEST_FILE) {
    return("its file name is the manifest itself")
  }
  NULL
}

# Why a report entry is broken, or NULL when it holds what a reader needs.
entry_problem <- function(entry) {
  if (!is_object(entry)) {
    return("it is not an object")
  }
  problem <- file_name_problem(entry$file)
  if (!is.null(problem)) {
    return(problem)
  }
  if (!is.character(entry$sha256) || length(entry$sha256) != 1 || !grepl(SHA256_SHAPE, entry$sha256)) {
    return("it has no SHA-256 (64 lower-case hex digits) to check the file against")
  }
  if (!is.numeric(entry$bytes) || length(entry$bytes) != 1 || entry$bytes < 0 || entry$bytes != round(entry$bytes)) {
    return("its \"bytes\" is not a whole number of bytes")
  }
  for (field in c("client", "project", "published_at", "revision", "status", "type", "source")) {
    value <- entry[[field]]
    if (!is.null(value) && !(is.character(value) && length(value) == 1)) {
      return(sprintf("its \"%s\" is not text", field))
    }
  }
  if (!is.null(entry$samples) && !(is.list(entry$samples) && all(vapply(entry$samples, function(s) is.character(s) && length(s) == 1, logical(1))))) {
    return("its \"samples\" is not a list of sample ids")
  }
  NULL
}

# Which entries may be broken, found for ten thousand at once: each flagged one is then checked
# by entry_problem(), which says why (an entry that passes here always passes there).
suspect_entries <- function(reports) {
  text_of <- function(field) vapply(reports, function(e) {
    value <- if (is.list(e)) e[[field]] else NULL
    if (is.character(value) && length(value) == 1) value else NA_character_
  }, character(1), USE.NAMES = FALSE)
  files <- text_of("file")
  sha <- text_of("sha256")
  bytes <- vapply(reports, function(e) {
    value <- if (is.list(e)) e$bytes else NULL
    if (is.numeric(value) && length(value) == 1) value else NA_real_
  }, numeric(1), USE.NAMES = FALSE)
  others <- vapply(reports, function(e) {
    if (!is.list(e) || is.null(names(e))) return(FALSE)
    fields <- e[intersect(names(e), c("client", "project", "published_at", "revision", "status", "type", "source"))]
    all(vapply(fields, function(v) is.character(v) && length(v) == 1, logical(1))) &&
      (is.null(e$samples) || (is.list(e$samples) && all(vapply(e$samples, function(v) is.character(v) && length(v) == 1, logical(1)))))
  }, logical(1), USE.NAMES = FALSE)
  plain <- !is.na(files) & grepl("^[^/\\\\[:cntrl:]]+(/[^/\\\\[:cntrl:]]+)*$", files) &
    !grepl("(^|/)\\.\\.?(/|$)", files) & !grepl("^[A-Za-z]:", files) & tolower(files) != MANIFEST_FILE
  !(plain & !is.na(sha) & grepl(SHA256_SHAPE, sha) & !is.na(bytes) & bytes >= 0 & bytes == round(bytes) & others)
}

# The manifest read strictly: list(file, folder, labs = list of list(origin, name, files_at,
# reports = named list of entries)). Stops with a `labdata_manifest_error` naming the line.
read_manifest <- function(file) {
  shown <- file
  raw <- tryCatch(readBin(file, "raw", file.info(file)$size), error = function(e) {
    stop(manifest_error(shown, NA_integer_, paste("it cannot be read:", conditionMessage(e))))
  })
  text <- rawToChar(raw)
  Encoding(text) <- "UTF-8"
  text <- sub("^\ufeff", "", text)
  lines <- strsplit(text, "\n", fixed = TRUE)[[1]]
  marker <- which(grepl("^(<{7}|>{7})( |$)|^={7}$|^\\|{7}( |$)", lines))
  if (length(marker) > 0) {
    stop(manifest_error(shown, marker[[1]], sprintf(
      "it still holds a git conflict marker (%s): a merge was left unresolved. Run lab-data merge-manifest --resolve %s to merge both sides entry by entry",
      substr(lines[[marker[[1]]]], 1, 40), shQuote(dirname(file))
    )))
  }
  parsed <- tryCatch(jsonlite::fromJSON(text, simplifyVector = FALSE), error = function(e) e)
  if (inherits(parsed, "error")) {
    for (i in seq_along(lines)) {
      why <- broken_line(lines[[i]])
      if (!is.null(why)) {
        stop(manifest_error(shown, i, paste("it is not valid JSON:", trimws(strsplit(why, "\n")[[1]][[1]]))))
      }
    }
    stop(manifest_error(shown, NA_integer_, paste("it is not valid JSON:", trimws(strsplit(conditionMessage(parsed), "\n")[[1]][[1]]))))
  }
  if (!is_object(parsed)) {
    stop(manifest_error(shown, 1L, "it is not a JSON object"))
  }
  version <- parsed$version
  if (!identical(version, LOCKFILE_VERSION)) {
    line <- line_of(lines, "\"version\"")
    said <- if (is.null(version)) "no version" else paste("version", format(version))
    problem <- if (is.numeric(version) && length(version) == 1 && version %in% c(1, 2)) {
      sprintf("it has %s, written by an older Lab Data; this reader reads version 3 (the lab-data tool reads it and rewrites it as version 3 on its next sync or pull)", said)
    } else if (is.numeric(version) && length(version) == 1 && version > LOCKFILE_VERSION) {
      sprintf("it has %s, newer than this labdata reads (version 3); update labdata", said)
    } else {
      sprintf("it has %s; this reader reads version 3", said)
    }
    stop(manifest_error(shown, line, problem))
  }
  if (!is_object(parsed$labs)) {
    stop(manifest_error(shown, line_of(lines, "\"labs\""), "its \"labs\" is not an object of lab sections keyed by origin"))
  }
  labs <- list()
  for (origin in names(parsed$labs)) {
    section <- parsed$labs[[origin]]
    section_line <- line_of(lines, paste0(jsonlite::toJSON(origin, auto_unbox = TRUE), ":"))
    if (!is_object(section) || !is_object(section$reports)) {
      stop(manifest_error(shown, section_line, sprintf("the lab section %s has no \"reports\" object", origin)))
    }
    for (id in names(section$reports)[suspect_entries(section$reports)]) {
      problem <- entry_problem(section$reports[[id]])
      if (!is.null(problem)) {
        line <- line_of(lines, paste0(jsonlite::toJSON(id, auto_unbox = TRUE), ":"), if (is.na(section_line)) 1L else section_line)
        stop(manifest_error(shown, line, sprintf("the entry of report %s (lab %s) is broken: %s", id, origin, problem)))
      }
    }
    name <- if (is.character(section$name) && length(section$name) == 1 && nzchar(section$name)) section$name else origin
    files_at <- if (is.character(section$files_at) && length(section$files_at) == 1) section$files_at else NA_character_
    labs[[length(labs) + 1]] <- list(origin = origin, name = name, files_at = files_at, reports = section$reports)
  }
  list(file = file, folder = dirname(file), labs = labs)
}
