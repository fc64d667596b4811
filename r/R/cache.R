# The content cache, by SHA-256, under the lab-data tool's rules: `LAB_DATA_CACHE` (a folder, or a
# team server's https:// address, http:// only to this machine), else the user's cache folder. Files
# live at `<cache>/sha256/<first two hex digits>/<sha256>`. Never a lab: a reader restores only what
# some cache holds, and only bytes that are the recorded SHA-256 take the file's name.

is_cache_address <- function(text) grepl("^[a-z][a-z0-9+.-]*://", trimws(text), ignore.case = TRUE)

default_cache_folder <- function() {
  sysname <- Sys.info()[["sysname"]]
  home <- path.expand("~")
  if (.Platform$OS.type == "windows") {
    local <- Sys.getenv("LOCALAPPDATA", file.path(home, "AppData", "Local"))
    return(file.path(local, "lab-data", "Cache"))
  }
  if (identical(sysname, "Darwin")) {
    return(file.path(home, "Library", "Caches", "lab-data"))
  }
  xdg <- trimws(Sys.getenv("XDG_CACHE_HOME"))
  base <- if (nzchar(xdg) && startsWith(xdg, "/")) xdg else file.path(home, ".cache")
  file.path(base, "lab-data")
}

# The cache to use: list(kind = "folder", folder) or list(kind = "server", address).
cache_location <- function() {
  chosen <- trimws(Sys.getenv("LAB_DATA_CACHE"))
  if (nzchar(chosen) && is_cache_address(chosen)) {
    return(list(kind = "server", address = chosen))
  }
  list(kind = "folder", folder = if (nzchar(chosen)) normalizePath(chosen, mustWork = FALSE) else default_cache_folder())
}

cache_path <- function(folder, sha256) file.path(folder, "sha256", substr(sha256, 1, 2), sha256)

# Whether the folder cache holds a file of this SHA-256 and size (not hashed: restoring checks it).
in_folder_cache <- function(location, sha256, bytes) {
  if (location$kind != "folder") {
    return(rep(FALSE, length(sha256)))
  }
  sizes <- file.info(cache_path(location$folder, sha256), extra_cols = FALSE)$size
  !is.na(sizes) & sizes == bytes
}

is_loopback <- function(host) {
  host <- tolower(gsub("^\\[|\\]$", "", host))
  host %in% c("localhost", "::1") || grepl("^127\\.", host)
}

# Why a team cache's address cannot be used, or NULL when it can (the lab-data tool's rules).
cache_address_problem <- function(text) {
  use_token <- "use LAB_DATA_CACHE_TOKEN (or a machine in ~/.netrc) instead"
  match <- regmatches(text, regexec("^([a-zA-Z][a-zA-Z0-9+.-]*)://([^/?#]*)([^?#]*)(.*)$", text))[[1]]
  if (length(match) == 0) {
    return(sprintf("\"%s\" is not a web address such as https://cache.example.com/lab-data", substr(text, 1, 80)))
  }
  scheme <- tolower(match[[2]])
  authority <- match[[3]]
  path <- match[[4]]
  rest <- match[[5]]
  host_port <- sub("^.*@", "", authority)
  host <- sub(":[0-9]*$", "", host_port)
  shown <- sprintf("%s://%s", scheme, host_port)
  if (!scheme %in% c("https", "http")) {
    return(sprintf("a team cache's address must start with https:// (got %s:)", scheme))
  }
  if (grepl("@", authority, fixed = TRUE)) {
    return(sprintf("the cache address %s holds a user name or password: %s", shown, use_token))
  }
  if (nzchar(rest)) {
    return(sprintf("the cache address %s has a query or fragment (a token?): %s", shown, use_token))
  }
  decoded <- path
  for (round in 1:3) decoded <- tryCatch(utils::URLdecode(decoded), error = function(e) decoded)
  if (any(grepl("(^|[/\\\\])\\.\\.?([/\\\\]|$)", c(path, decoded)))) {
    return(sprintf("the cache address %s has a \".\" or \"..\" in its path, which would leave its prefix; give the folder's address itself", shown))
  }
  if (scheme == "http" && !is_loopback(host)) {
    return(sprintf("the cache address %s must use https:// so its token is never sent unencrypted (http:// is allowed only for this machine)", shown))
  }
  NULL
}

# The login and password of `machine` in a .netrc text; never the `default` entry (a default login
# would go to any host). `has_default` says whether the text holds one, for the message.
netrc_credentials <- function(text, machine) {
  words <- strsplit(trimws(text), "\\s+")[[1]]
  entries <- list()
  current <- 0L
  i <- 1L
  while (i <= length(words)) {
    word <- words[[i]]
    if (word == "machine") {
      entries[[length(entries) + 1]] <- list(name = tolower(words[i + 1]))
      current <- length(entries)
      i <- i + 1L
    } else if (word == "default") {
      entries[[length(entries) + 1]] <- list(name = NA_character_)
      current <- length(entries)
    } else if (current > 0 && word %in% c("login", "password")) {
      entries[[current]][[word]] <- words[i + 1]
      i <- i + 1L
    } else if (word == "macdef") {
      current <- 0L
    }
    i <- i + 1L
  }
  named <- Filter(function(e) identical(e$name, tolower(machine)), entries)
  for (entry in named[1]) {
    if (!is.null(entry$login) && !is.null(entry$password) && !is.na(entry$login) && !is.na(entry$password)) {
      return(list(login = entry$login, password = entry$password))
    }
  }
  if (length(named) == 0 && any(vapply(entries, function(e) is.na(e$name), logical(1)))) {
    return(structure(list(), has_default = TRUE))
  }
  NULL
}

# Why a .netrc that group or others may read or write is not used (the command line's rule).
netrc_mode_problem <- function(file, mode) {
  if (.Platform$OS.type == "windows" || bitwAnd(mode, 63L) == 0L) {
    return(NULL)
  }
  readable <- bitwAnd(mode, strtoi("044", 8L)) != 0L
  writable <- bitwAnd(mode, strtoi("022", 8L)) != 0L
  how <- if (readable && writable) "readable and writable" else if (readable) "readable" else if (writable) "writable" else "open"
  sprintf("%s is %s %s others (mode %04o): chmod 600 %s; its credentials are not sent to the team cache.",
    file, how, if (how == "open") "to" else "by", bitwAnd(mode, 511L), file)
}

# The team cache's own `Authorization`: LAB_DATA_CACHE_TOKEN (Bearer), else the host's machine in
# NETRC or ~/.netrc (Basic) when only its owner may read or write it; never a lab's token, never the
# netrc's default entry. A list of `header` (NULL when there is none) and `refused` (why a netrc's
# credentials were not used, or NULL).
cache_authorization <- function(address) {
  token <- trimws(Sys.getenv("LAB_DATA_CACHE_TOKEN"))
  if (nzchar(token)) {
    return(list(header = paste("Bearer", token), refused = NULL))
  }
  none <- list(header = NULL, refused = NULL)
  netrc <- trimws(Sys.getenv("NETRC"))
  file <- if (nzchar(netrc)) netrc else file.path(path.expand("~"), ".netrc")
  text <- tryCatch(paste(readLines(file, warn = FALSE), collapse = "\n"), error = function(e) NULL, warning = function(w) NULL)
  if (is.null(text)) {
    return(none)
  }
  host <- tolower(gsub("^\\[|\\]$", "", sub(":[0-9]*$", "", sub("^[^:]*://([^/?#]*).*$", "\\1", address))))
  found <- netrc_credentials(text, host)
  if (!is.null(found) && isTRUE(attr(found, "has_default"))) {
    return(list(header = NULL, refused = sprintf(
      "%s: its default entry is not used for the team cache (a default login would go to any host); add \"machine %s\" with its login and password.",
      file, host)))
  }
  if (is.null(found)) {
    return(none)
  }
  problem <- netrc_mode_problem(file, as.integer(file.info(file)$mode))
  if (!is.null(problem)) {
    return(list(header = NULL, refused = problem))
  }
  pair <- jsonlite::base64_enc(charToRaw(paste0(found$login, ":", found$password)))
  list(header = paste("Basic", pair), refused = NULL)
}

# Copies the cache's bytes of `sha256` to a temporary file beside `target`; returns its path, or a
# condition saying why not (not held, unreachable, refused).
fetch_from_cache <- function(location, sha256, temp) {
  if (location$kind == "folder") {
    source <- cache_path(location$folder, sha256)
    if (!file.exists(source)) {
      return(simpleCondition(sprintf("the cache %s does not hold it", location$folder)))
    }
    if (!isTRUE(file.copy(source, temp, overwrite = TRUE))) {
      return(simpleCondition(sprintf("its copy in the cache %s cannot be read", location$folder)))
    }
    return(temp)
  }
  address <- sub("/+$", "", trimws(location$address))
  problem <- cache_address_problem(address)
  if (!is.null(problem)) {
    return(simpleCondition(paste0("the team cache cannot be used: ", problem)))
  }
  url <- paste(address, "sha256", substr(sha256, 1, 2), sha256, sep = "/")
  seconds <- suppressWarnings(as.numeric(Sys.getenv("LAB_DATA_ANSWER_TIMEOUT", "30")))
  if (is.na(seconds) || seconds <= 0) seconds <- 30
  credentials <- cache_authorization(address)
  why <- download_without_redirect(url, temp, credentials$header, seconds)
  if (!is.null(why)) {
    if (!is.null(credentials$refused)) {
      why <- paste0(why, "; ", credentials$refused)
    }
    unlink(temp)
    return(simpleCondition(sprintf("the team cache %s did not give it (%s)", address, why)))
  }
  temp
}

# Where a redirect points, for its message: the host only (its path and query may hold anything).
redirect_host <- function(location, url) {
  host_of <- function(text) tolower(sub("^[a-zA-Z][a-zA-Z0-9+.-]*://(?:[^@/?#]*@)?([^/?#]*).*$", "\\1", text, perl = TRUE))
  if (!nzchar(location) || !grepl("^[a-zA-Z][a-zA-Z0-9+.-]*://", location)) {
    return(if (nzchar(location)) "another address on the same server" else "an unreadable address")
  }
  if (identical(host_of(location), host_of(url))) "another address on the same server" else host_of(location)
}

# GETs `url` into `temp` as the lab-data tool does: no redirect followed (it could take the cache's
# credentials elsewhere), no proxy, the answer in time. R's own download (libcurl) always follows a
# redirect, so the curl command does it: its configuration files are not read (-q), and the
# credentials go in a header file only this user can read, never on its command line. NULL when
# the file came, else why not.
download_without_redirect <- function(url, temp, authorization, seconds) {
  curl <- Sys.which("curl")
  if (!nzchar(curl)) {
    return("restoring from a team cache needs the curl command, which is not installed")
  }
  args <- c(
    "-q", "--silent", "--show-error", "--noproxy", shQuote("*"), "--proto", "=http,https",
    # As the tool's answer timeout: no connection, or no byte for that long, gives up.
    "--connect-timeout", seconds, "--speed-limit", "1", "--speed-time", seconds,
    "--output", shQuote(temp), "--write-out", shQuote("%{http_code} %{redirect_url}")
  )
  if (!is.null(authorization)) {
    header_file <- tempfile("labdata-header-")
    file.create(header_file)
    Sys.chmod(header_file, "0600")
    on.exit(unlink(header_file), add = TRUE)
    writeLines(paste0("Authorization: ", authorization), header_file)
    args <- c(args, "--header", shQuote(paste0("@", header_file)))
  }
  errors <- tempfile("labdata-curl-")
  on.exit(unlink(errors), add = TRUE)
  out <- suppressWarnings(system2(curl, c(args, shQuote(url)), stdout = TRUE, stderr = errors))
  status <- attr(out, "status") %||% 0L
  said <- paste(out, collapse = " ")
  code <- suppressWarnings(as.integer(sub(" .*$", "", said)))
  clean <- function(text) {
    text <- gsub(authorization %||% "\001", "***", text, fixed = TRUE)
    substr(trimws(gsub("[[:cntrl:]]+", " ", text)), 1, 200)
  }
  if (status != 0 || is.na(code) || code == 0) {
    message <- tryCatch(paste(readLines(errors, warn = FALSE), collapse = " "), error = function(e) "")
    return(sprintf("it cannot be reached: %s", clean(if (nzchar(message)) message else paste("curl exited with", status))))
  }
  if (code >= 300 && code < 400) {
    where <- clean(redirect_host(trimws(sub("^[0-9]+ ?", "", said)), url))
    return(sprintf("it redirects to %s, which is not followed (a redirect could take its credentials elsewhere)", where))
  }
  if (code == 404) {
    return("it does not hold it")
  }
  if (code == 401 || code == 403) {
    return(sprintf("it refused %s (%d); set LAB_DATA_CACHE_TOKEN or a machine in ~/.netrc",
      if (is.null(authorization)) "to answer without credentials" else "the credentials given", code))
  }
  if (code < 200 || code >= 300) {
    return(sprintf("it answered %d", code))
  }
  NULL
}

# Restores a missing report file from the cache: its bytes, checked against the recorded SHA-256,
# take the file's name only when they match. Returns NULL when restored, else why not (text).
restore_from_cache <- function(target, sha256) {
  location <- cache_location()
  dir.create(dirname(target), showWarnings = FALSE, recursive = TRUE)
  temp <- tempfile(".restore-", tmpdir = dirname(target), fileext = ".part")
  on.exit(unlink(temp))
  got <- fetch_from_cache(location, sha256, temp)
  if (inherits(got, "condition")) {
    return(conditionMessage(got))
  }
  actual <- sha256_file(temp)
  if (!identical(actual, sha256)) {
    return(sprintf("the cache's copy is not the recorded file (its SHA-256 is %s)", actual))
  }
  if (!isTRUE(file.rename(temp, target))) {
    return(sprintf("%s cannot be written", target))
  }
  NULL
}
