import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError, Exit } from './exitCodes';
import { errorText } from '../../core/errors/errorText';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every command takes. */
export const COMMON_OPTIONS = {
  json: { type: 'boolean' },
  'token-file': { type: 'string' },
  'ca-file': { type: 'string', multiple: true },
  quiet: { type: 'boolean', short: 'q' },
  verbose: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

const LAB = { lab: { type: 'string' } } as const satisfies Options;
const CACHE = { cache: { type: 'string' } } as const satisfies Options;
const FILTERS = {
  since: { type: 'string' },
  client: { type: 'string' },
  project: { type: 'string' },
  status: { type: 'string' },
  type: { type: 'string' },
} as const satisfies Options;
/** Pull, status and verify work on a subset: the manifest's own fields (each list flag repeatable), or a profile. */
const SELECT = {
  lab: { type: 'string', multiple: true },
  client: { type: 'string', multiple: true },
  project: { type: 'string', multiple: true },
  status: { type: 'string', multiple: true },
  type: { type: 'string', multiple: true },
  sample: { type: 'string', multiple: true },
  report: { type: 'string', multiple: true },
  since: { type: 'string' },
  until: { type: 'string' },
  profile: { type: 'string' },
  all: { type: 'boolean' },
} as const satisfies Options;
const SELECT_USAGE = '[--profile NAME | --all] [--lab NAME|URL] [--client ID] [--since 30d] […]';
/** What every command that takes a selection says of it. */
const SELECT_NOTE = `
Selecting reports (see "Selecting reports" in the README of lab-data-cli): each flag below keeps the reports whose
recorded field is one of its values (repeat a flag for several: --client A --client B); several flags
must all hold. The others are "not selected", never "missing": a selection in step exits 0.
  --lab NAME|URL   a lab of the manifest by its name, or by its address (an address also confirms where
                   the token may go, as LAB_DATA_URL does; a name confirms nothing)
  --client ID, --project ID, --status S, --type T, --sample ID, --report ID
  --since, --until published at or after / at or before: a date (2026-01-31; --until includes that day),
                   or a time ago (today, 24h, 7d, 2w, 1m, 1y)
  --profile NAME   a named selection of the folder's lab-data-profiles.json (committed beside the manifest);
                   without --profile: LAB_DATA_PROFILE, else this clone's own (lab-data profile use NAME),
                   else the file's "default"; flags narrow a profile further
  --all            no profile at all (flags still apply)
A selection that matches no report is a usage error (exit 2). A line on stderr says what it selects.`;
const FORMATS = {
  jsonl: { type: 'boolean' },
  csv: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
} as const satisfies Options;
/** What every listing's help says about where it goes. */
const OUTPUT_NOTE = `
  -o, --output FILE  write the listing to FILE, which takes that name only once the last record is in:
                     if the lab or the network fails part-way, no FILE is written (an earlier one is
                     kept) and the exit status says why. Without -o the listing streams to stdout; if
                     it stops part-way, stderr says "the output is incomplete" and the exit status is
                     not 0 (a --json array is then left unclosed, so it does not parse).`;

/** One command: its options, how it is used, what it does, examples. */
export interface CommandSpec {
  readonly options: Options;
  readonly usage: string;
  readonly summary: string;
  readonly details: string;
  readonly examples: readonly string[];
  /** At most this many positionals. */
  readonly positionals: number;
  /** Whether one positional is required. */
  readonly requiresPositional?: boolean;
}

const FOLDER_NOTE = 'FOLDER defaults to lab-reports.';

export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  pull: {
    options: {
      ...SELECT,
      ...CACHE,
      update: { type: 'boolean' },
      force: { type: 'boolean' },
      rehash: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
    },
    usage: `lab-data pull [FOLDER] ${SELECT_USAGE} [--update] [--force] [--rehash] [--cache DIR] [--dry-run] [--json]     (LAB_DATA_TOKEN, LAB_DATA_URL)`,
    summary: "restore the files a folder's manifest (lab-data-sync.json) lists",
    details: `Restores exactly the files the manifest lists, under their recorded names, each checked against its
SHA-256 before it takes its name: from the content cache first, then from the lab. A file already there and
identical needs nothing; a folder whose files are all there or in the cache needs no lab and no token.
Every file taken from the lab is also kept in the cache, so a report amended at the lab later can still be
restored at its recorded revision. A recorded revision neither the cache nor the lab has any more is named
with both revisions (exit 1); --update asks the lab about every report (one small request each), takes its
newer files and records them. A local file that differs from its record is left alone unless --force.
The files' paths come from the manifest; the token's own variable must pair it with that address
(LAB_DATA_URL or --lab for LAB_DATA_TOKEN, LAB_DATA_URL_<LAB> for LAB_DATA_TOKEN_<LAB>; see Environment),
since a manifest in a repository never decides alone where a token goes.
Two pulls into one folder never interleave: the second stops with a message. Every file the cache holds is
restored whatever the lab does; each reason a file was not restored is said once, with the files it kept
back. --json prints { folder, files: [{ lab, report_id, file, state, from, bytes, error, … }], from_cache,
from_lab, bytes, manifest_written, exit_code }. ${FOLDER_NOTE}
  --update    ask the lab about amendments; take its newer files and update their manifest entries
  --force     replace local files that differ from their record
  --rehash    hash every file, even those whose size and time are as recorded
  --cache DIR the content cache: a folder or a team server's https:// address (default LAB_DATA_CACHE)
  --dry-run   print what would be restored, from where, and the bytes (of the selection); write nothing
${SELECT_NOTE}`,
    examples: [
      'LAB_DATA_TOKEN=… LAB_DATA_URL=https://lab.example.com lab-data pull',
      'lab-data pull --client C-1001 --since 2026-01-01 --dry-run',
      'lab-data pull --profile mine',
      'LAB_DATA_CACHE=/mnt/team/lab-data-cache lab-data pull analysis/reports --json',
      'lab-data pull --dry-run',
      'lab-data pull --update',
    ],
    positionals: 1,
  },
  verify: {
    options: { ...SELECT, remote: { type: 'boolean' }, rehash: { type: 'boolean' } },
    usage: `lab-data verify [FOLDER] ${SELECT_USAGE} [--remote] [--rehash] [--json]`,
    summary: 'check every listed file against its SHA-256 (and, with --remote, the lab)',
    details: `Checks that every file the manifest lists is there with its recorded SHA-256. A file whose size and
modification time are unchanged since they were recorded is trusted without being read: a change that
keeps both (a tool that restores the old time) is not noticed unless --rehash, which reads and hashes
every file. --remote also asks each
file's lab whether the report has a newer revision (needs a token and the lab's address, as pull). Prints one
line when every file is as recorded, else each cause (missing, changed, changed at the lab) with its files;
-v lists every file; --json prints { folder, remote, files: [{ lab, report_id, file, state, local, at_lab,
unavailable }], ok, missing, changed, changed_at_lab, exit_code }. Exits 1 on any missing or changed file,
so it can be a CI step. ${FOLDER_NOTE}
  --remote   also ask the lab about newer revisions
  --rehash   read and hash every file, trusting no size and time
${SELECT_NOTE}`,
    examples: [
      'lab-data verify',
      'lab-data verify lab-reports --remote --json',
      'lab-data verify --profile mine',
    ],
    positionals: 1,
  },
  sync: {
    options: {
      ...LAB,
      ...FILTERS,
      ...CACHE,
      template: { type: 'string' },
      rehash: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
    },
    usage:
      'lab-data sync [FOLDER] --lab URL [--since 30d] [--client ID] [--project ID] [--status S] [--type T] [--template T] [--dry-run] [--json]',
    summary: "save a lab's new and changed reports into a folder, writing its manifest",
    details: `Saves the lab's reports into FOLDER and records each in the folder's manifest, the same format the
VS Code extension writes, so both can work on one folder. After the first sync only reports published since
the last one are listed. A locally changed file is never overwritten. Filters narrow what is saved; a
filtered sync lists everything its filters match each time and does not move the folder's "since" mark.
Every file saved is also kept in the content cache (--cache DIR or LAB_DATA_CACHE, as pull).
The lab's address comes from --lab or LAB_DATA_URL. ${FOLDER_NOTE}
  --since     published since: a date (2026-01-31), or a time ago (today, 24h, 7d, 2w, 1m, 1y)
  --client, --project, --status   the lab's filters
  --type      a report type (applied by lab-data to what the lab sends)
  --template  file names, e.g. '\${client_id}/\${report_id}.pdf' (default '\${report_id}.pdf')
  --dry-run   print what would be downloaded (new, amended), kept and skipped, and the bytes (asked of
              the lab with HEAD; "size unknown" where it will not say); write nothing`,
    examples: [
      'LAB_DATA_URL=https://lab.example.com lab-data sync',
      'lab-data sync lab-reports --lab https://lab.example.com --dry-run',
      'lab-data sync lab-reports --lab https://lab.example.com --since 30d --client C-1001',
    ],
    positionals: 1,
  },
  status: {
    options: {
      ...SELECT,
      ...CACHE,
      remote: { type: 'boolean' },
      rehash: { type: 'boolean' },
      'check-cache': { type: 'boolean' },
    },
    usage: `lab-data status [FOLDER] ${SELECT_USAGE} [--remote] [--check-cache] [--cache DIR] [--json]`,
    summary: 'what is missing, changed, restorable from the cache, amended or new at the lab',
    details: `Like git status, for a folder and its manifest: each recorded file missing, changed locally, or as
recorded, and whether the content cache can restore it (then lab-data pull needs no lab). Without --remote
no lab is asked and no token is needed. --remote asks each lab with its list pages (one request a page,
never one a report): reports amended at the lab since they were recorded (both revisions), reports it no
longer lists, and, for a folder synced on this machine, reports new at the lab. Exits 0 only when nothing
(selected) is out of step, else 1; with --remote, 3 when a lab's token is missing, refused or not
confirmed, and 4 when a lab cannot be reached. --check-cache also names each recorded file the cache lacks
(present here or not) and exits 1 when there is one, so CI can gate a merge on a team cache that restores
everything. --json prints { folder, in_step, remote, entries: [{ lab, origin, report_id, file,
local: ok|missing|changed, cached, remote: same|amended|notListed, recorded_revision, lab_revision,
changes }], new_at_lab: [{ lab, report_id, published_at }], unavailable: [{ lab, reason }], cache_lacks,
exit_code, selection: { said, profile, selected, not_selected, bytes } } (cached: whether the cache holds
the recorded file; cache_lacks: how many it does not; with a selection, entries are the selected ones
only; see docs/reports-in-git-and-ci.md in the Lab Data repository). ${FOLDER_NOTE}
  --remote       also ask the labs (token and address as for pull)
  --check-cache  exit 1 when the cache lacks any recorded file (or holds it at another size), naming
                 them; a server is asked for its folders' JSON listing (nginx autoindex_format json),
                 one request a folder, else one HEAD a file
  --cache DIR    the content cache (default LAB_DATA_CACHE, else the user's cache folder)
  --rehash       hash every file
${SELECT_NOTE}`,
    examples: [
      'lab-data status',
      'lab-data status lab-reports --remote --json',
      'LAB_DATA_CACHE=/mnt/team/lab-data-cache lab-data status --check-cache',
      'lab-data status --client C-1001 --until 2026-03-31',
    ],
    positionals: 1,
  },
  profile: {
    options: { clear: { type: 'boolean' } },
    usage:
      'lab-data profile [FOLDER] | profile use NAME [FOLDER] | profile use --clear [FOLDER] [--json]',
    summary: "this clone's own profile: the selection pull, status and verify take by default",
    details: `A clone's own default selection, kept on this machine only, in FOLDER/.lab-data/profile (git ignores
.lab-data/), so one teammate's clone can pull only the "coa" reports while another's takes every report.
lab-data profile use NAME makes NAME, a profile of the folder's lab-data-profiles.json, the clone's own:
pull, status and verify (and the VS Code extension's Saved Reports view) then select by it; a name the
file lacks is refused, naming the file. lab-data profile use --clear forgets it. lab-data profile says
which profile applies and why, and lists the file's profiles (--json: { folder, profile, source,
clone_profile, variable, default, profiles }). Which profile applies, strongest first: --profile NAME,
then LAB_DATA_PROFILE, then the clone's own, then the "default" of lab-data-profiles.json; --all takes
none. ${FOLDER_NOTE}
  --clear    with use: forget the clone's own profile`,
    examples: [
      'lab-data profile use coa',
      'lab-data profile',
      'lab-data profile use --clear analysis/lab-reports',
      'LAB_DATA_PROFILE=mine lab-data status',
    ],
    positionals: 3,
  },
  'merge-manifest': {
    options: { install: { type: 'boolean' }, resolve: { type: 'boolean' } },
    usage:
      'lab-data merge-manifest BASE OURS THEIRS [PATH] | --install [REPO] | --resolve [FOLDER]',
    summary: "git's merge driver for lab-data-sync.json (entry by entry)",
    details: `Merges two manifests entry by entry, as git's merge driver (git gives %O %A %B %P; the result is written
to OURS): reports only one side has are both kept, the same report at two revisions takes the newer, two
files of one report at one revision are a conflict it names (exit 1; git then marks the file conflicted),
and when two reports claim one file name, the one whose id sorts later gets a second name,
<stem>~<report id><ext>, said on stderr (its file is moved there when this clone holds it under the
old name; else lab-data pull restores it). Set it up once per clone with
lab-data merge-manifest --install [REPO]: it adds 'lab-data-sync.json merge=lab-data' to .gitattributes
and sets git config merge.lab-data.driver to this Node and this lab-data by absolute path, so that any
git finds it (a GUI's, an editor's, a hook's, npx's); run it again if Node or lab-data move.
lab-data status warns when the configured driver cannot be run.
--resolve [FOLDER] finishes a merge git left unmerged: from git's three versions of the file when the
driver never ran (no markers), from the markers otherwise; it writes the file in place and leaves the
staging to you: check it, then git add it and commit. Every other command refuses an unmerged manifest.
On a merged manifest it gives a second name to a report claiming another's file name.
  --install  write the driver into the repository's git config and .gitattributes
  --resolve  finish an unmerged manifest, or separate file names claimed twice`,
    examples: [
      'lab-data merge-manifest --install',
      'lab-data merge-manifest --resolve lab-reports',
    ],
    positionals: 4,
  },
  uses: {
    options: { record: { type: 'boolean' } },
    usage: 'lab-data uses [FOLDER] [--record] [--json]',
    summary: 'which scripts and notebooks use which reports; --record writes lab-data-uses.json',
    details: `Tells which consumers (scripts, notebooks, documents of the repository) use which of the manifest's
reports, from two sources: what the Python and R readers (labdata) logged in .lab-data/reads.jsonl when a
consumer read a report ("read": that revision and SHA-256), and the report ids the repository's .py, .R,
.Rmd, .qmd, .ipynb (cells' sources and outputs) and .md files name ("named": taken to use the revision the
manifest records when uses are recorded). The scan follows .gitignore (git ls-files) and reads again only
files whose size or time changed. --record writes lab-data-uses.json beside the manifest: per consumer
(its path from the repository's top), each report with lab, id, revision, SHA-256 and how it is known;
sorted, one use a line, no times and no machine's paths, so it is committed and merges with
lab-data merge-manifest. Without --record it prints the uses (--json: { folder, root, uses: [{ consumer,
lab, id, revision, sha256, how }] }). ${FOLDER_NOTE}
  --record   write lab-data-uses.json`,
    examples: ['lab-data uses --record', 'lab-data uses analysis/lab-reports --json'],
    positionals: 1,
  },
  impact: {
    options: { folder: { type: 'string' }, remote: { type: 'boolean' }, ...CACHE },
    usage: 'lab-data impact [ID…] [--folder DIR] [--remote] [--json] [--quiet]',
    summary: 'which scripts and notebooks used another revision of a report than the one recorded',
    details: `For every report (or only the IDs given) whose recorded revision or SHA-256 differs from what a consumer
used (see lab-data uses), the consumers affected: a table of consumer, report, the revision it used, the one
recorded, and how the use is known. --remote measures against each lab's newest revision instead (token and
address as for pull). --json prints { folder, remote, affected: [{ consumer, lab, id, used_revision,
used_sha256, revision, published_at, how }], consumers, exit_code }; --quiet prints one line per affected
consumer and nothing when none is (for CI). Uses are the committed lab-data-uses.json updated with this
machine's reads (.lab-data/reads.jsonl); a consumer that only names an id counts as using the revision
recorded when uses were last recorded. Exits 1 when a consumer is affected, 0 when none is, 2 on a
command line or manifest that cannot be used, 3 and 4 with --remote as status. --folder defaults to
lab-reports.
  --folder DIR  the manifest's folder
  --remote      against the labs' newest revisions`,
    examples: [
      'lab-data impact',
      'lab-data impact RPT-2026-000381 --json',
      'lab-data impact --remote --quiet',
    ],
    positionals: Infinity,
  },
  cache: {
    options: {
      ...CACHE,
      'keep-manifest': { type: 'string', multiple: true },
      'older-than': { type: 'string' },
      repair: { type: 'boolean' },
    },
    usage:
      'lab-data cache [prune [FOLDER…] [--keep-manifest FILE]… [--older-than 30d] | push [FOLDER…] | verify [FOLDER…] [--repair]] [--cache DIR]',
    summary:
      'what the content cache holds; fill it from folders (push); prune what no manifest needs',
    details: `Every file lab-data (and the VS Code extension) saves, syncs or pulls is also kept in a content cache,
by its SHA-256, so any committed manifest can be restored without the lab, even a revision the lab no longer
serves. The cache is --cache DIR, else LAB_DATA_CACHE, else the user's cache folder ($XDG_CACHE_HOME or
~/.cache/lab-data on Linux, ~/Library/Caches/lab-data on macOS, %LOCALAPPDATA%\\lab-data\\Cache on Windows;
readable by the user alone). A cache that cannot be written (a read-only share) is still read.
lab-data cache prints where it is, how many files and bytes it holds. lab-data cache prune removes what
none of the given manifests (--keep-manifest FILE, repeatable, or folders) records, and/or what was not
used for --older-than (h, d, w); with both, only what is unneeded and old.
lab-data cache push [FOLDER…] (FOLDER defaults to lab-reports) publishes each folder's recorded files to
the cache, so a teammate's or CI's pull restores them without the lab: only a file whose bytes are its
recorded SHA-256 (hashed as it is copied); one that differs or is missing is named and not pushed. What
the cache holds already is not copied again. It prints pushed N (bytes), already there M, not pushed K
(why); --json the same per file. A cache that cannot be written (read-only, full) stops the push with a
message, leaving nothing half-written; the files after it are still looked for, so it says how many the
cache lacks, how many it could not check, and advice that fits the refusal (credentials, space). Exit 0
when the cache then holds every recorded file, 4 when the cache stopped answering (3: it refused the
credentials), else 1.
lab-data cache verify [FOLDER…] [--repair] reads back every file the folders' manifests record from the
cache and checks its SHA-256 (a same-size corrupt copy passes a HEAD); --repair replaces a corrupt copy
with the folder's file when that is the recorded bytes. Exit 0 when every copy is good (or repaired), 1
when one is corrupt or missing, 4 when the cache cannot be reached (3: it refused the credentials).
A team cache on a server (--cache or LAB_DATA_CACHE https://…, its token in LAB_DATA_CACHE_TOKEN or
~/.netrc) has the user's own cache folder in front of it: pull and sync read the folder first, then the
server, keeping what the server gives in the folder; they never write to the server (only cache push
publishes; a copy on the server found corrupt is replaced with the good bytes). push PUTs each file and
checks it is held; lab-data cache says whether the server answers; status --check-cache tells what it
lacks; prune is the server's own business.`,
    examples: [
      'lab-data cache',
      'lab-data sync && lab-data cache push --cache /mnt/team/lab-data-cache',
      'lab-data cache prune --keep-manifest analysis/lab-reports/lab-data-sync.json',
      'lab-data cache prune --older-than 30d',
      'lab-data cache verify lab-reports --repair',
    ],
    positionals: Infinity,
  },
  reports: {
    options: { ...LAB, ...FILTERS, ...FORMATS },
    usage:
      'lab-data reports --lab URL [--since 7d] [--client ID] [--project ID] [--status S] [--type T] [--json|--jsonl|--csv] [-o FILE]',
    summary: 'list reports, newest first, as pages arrive',
    details: `Lists the lab's reports: a table, or every field as --json (an array), --jsonl (one object a line) or
--csv (the extension's export columns: every field any record has). JSON and JSON Lines stream as pages
arrive; CSV is written when the last page has come, since its header needs every field. A control character
the lab sent (ESC, BEL, NUL, DEL, C1) never reaches the terminal raw: CSV writes it as its escape (\\u001b),
JSON as the JSON escape of the same value.${OUTPUT_NOTE}`,
    examples: [
      'lab-data reports --lab https://lab.example.com --since 7d',
      'lab-data reports --jsonl -o reports.jsonl',
      'python -c "import pandas; print(pandas.read_json(\'reports.jsonl\', lines=True))"',
    ],
    positionals: 0,
  },
  samples: {
    options: {
      ...LAB,
      since: { type: 'string' },
      client: { type: 'string' },
      project: { type: 'string' },
      status: { type: 'string' },
      ...FORMATS,
    },
    usage:
      'lab-data samples --lab URL [--since 7d] [--client ID] [--project ID] [--status S] [--json|--jsonl|--csv] [-o FILE]',
    summary: 'list samples (--since: received since)',
    details: `Lists the lab's samples, newest first; --since filters by the day received.${OUTPUT_NOTE}`,
    examples: ['lab-data samples --since 14d --csv -o samples.csv'],
    positionals: 0,
  },
  clients: {
    options: { ...LAB, ...FORMATS },
    usage: 'lab-data clients --lab URL [--json|--jsonl|--csv] [-o FILE]',
    summary: 'list clients',
    details: `Lists the clients the token may see.${OUTPUT_NOTE}`,
    examples: ['lab-data clients --json'],
    positionals: 0,
  },
  projects: {
    options: { ...LAB, client: { type: 'string' }, ...FORMATS },
    usage: 'lab-data projects --lab URL [--client ID] [--json|--jsonl|--csv] [-o FILE]',
    summary: 'list projects, locations or work orders',
    details: `Lists projects (locations, work orders), of one client with --client.${OUTPUT_NOTE}`,
    examples: ['lab-data projects --client C-1001'],
    positionals: 0,
  },
  report: {
    options: { ...LAB },
    usage: 'lab-data report ID --lab URL [--json]',
    summary: "one report's metadata",
    details: "Prints one report's fields, or the lab's record as --json.",
    examples: ['lab-data report RPT-2026-000120 --json'],
    positionals: 1,
    requiresPositional: true,
  },
};

const COMMON_HELP = `Options of every command:
  --json             results as JSON on stdout
  --token-file FILE  read the token from FILE (refused when other users can read it)
  --ca-file FILE     also trust the certificate authorities in FILE (PEM; repeatable)
  -q, --quiet        no progress on stderr, only failures
  -v, --verbose      more on stderr: the network in use, one line per request, lab named (no token)
  -h, --help         this help

Environment:
  LAB_DATA_TOKEN          the access token (never given on the command line); sent only to the origin
                          LAB_DATA_URL gives (without LAB_DATA_URL: the one --lab gives)
  LAB_DATA_URL            the lab's address (or --lab): for sync and listings, and what pairs LAB_DATA_TOKEN
  LAB_DATA_TOKEN_<NAME>   one lab's token (NAME: the lab's name in capitals, other characters as _, lab
                          "Riverside lab" → LAB_DATA_TOKEN_RIVERSIDE_LAB; or its address's, 127.0.0.1:47101 →
                          LAB_DATA_TOKEN_127_0_0_1_47101); sent only to the origin LAB_DATA_URL_<NAME> gives,
                          or, when that is not set, to the lab whose address gives exactly that NAME
  LAB_DATA_URL_<NAME>     the address LAB_DATA_TOKEN_<NAME> goes to (it decides: lab.b.com and lab-b.com
                          both give LAB_DATA_TOKEN_LAB_B_COM)
                          A LAB_DATA_TOKEN_<NAME> set but not paired with the lab's address stops the run:
                          LAB_DATA_TOKEN is never sent there instead. Anything else stops too (exit 3),
                          naming the variable to set; nothing is sent. --token-file: the token of this run's
                          lab, as LAB_DATA_TOKEN (LAB_DATA_URL, else --lab); a lab's own paired
                          LAB_DATA_TOKEN_<NAME> comes first. -v and lab-data status say which
                          variable supplies the token for which address (never the token).
  LAB_DATA_PROFILE        the profile pull, status and verify select by when no --profile is given (before
                          the clone's own, lab-data profile use, and the default of lab-data-profiles.json)
  LAB_DATA_CACHE          the content cache folder, or a team server's https:// address (or --cache;
                          default: the user's cache folder)
  LAB_DATA_CACHE_TOKEN    the team cache server's token (Bearer; else its host's machine in ~/.netrc, or the
                          file NETRC names: a file others may read or write, and its default entry,
                          are refused, saying why), never a lab's
  LAB_DATA_ANSWER_TIMEOUT seconds a lab may take to answer (default 30): to start, and between two parts of
                          an answer; also the most a lab failing as a whole (no answer, 5xx, a long
                          Retry-After) costs pull, sync and status --remote, retries and waits included
  HTTPS_PROXY, NO_PROXY   a proxy, and the hosts that bypass it
  NODE_EXTRA_CA_CERTS     more trusted authorities; the system's own store is always trusted

Output: pull and verify end with one summary line; each cause of a failure is said once, with its
count and its files (the first ten; -v lists them all, and the files that are fine too). On a terminal
a progress line is redrawn meanwhile; elsewhere (CI) nothing else is printed.

Exit status: 0 done; 1 a file is missing, changed, changed at the lab or could not be written;
2 usage or an unusable manifest; 3 no token, a lab address not confirmed, or the lab refused the token;
4 the lab or network unavailable. When a run meets several, the first of 2, 3, 4, 1 that applies.`;

/** The tool's overview (`lab-data --help`). */
export function generalHelp(version: string): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const rows = Object.entries(COMMANDS).map(
    ([name, spec]) => `  ${name.padEnd(width)}  ${spec.summary}`,
  );
  return `lab-data ${version}: reports from your laboratory's API, restored and checked like a lockfile.

Usage: lab-data <command> [options]     (lab-data <command> --help for each)
       lab-data --version               (or -V) the version of lab-data

Commands:
${rows.join('\n')}

Examples:
  LAB_DATA_TOKEN=… LAB_DATA_URL=https://lab.example.com lab-data pull && lab-data verify
  lab-data sync --lab https://lab.example.com --since 30d
  lab-data reports --lab https://lab.example.com --jsonl -o reports.jsonl

${COMMON_HELP}
`;
}

/** One command's help (`lab-data pull --help`). */
export function commandHelp(name: string): string {
  const spec = COMMANDS[name]!;
  return `Usage: ${spec.usage}

${spec.details}

Examples:
${spec.examples.map((example) => `  ${example}`).join('\n')}

${COMMON_HELP}
`;
}

/** Options of every command that may also come before it (`lab-data -q pull`). */
const LEADING_OPTIONS: ReadonlySet<string> = new Set(['-q', '--quiet', '-v', '--verbose']);

/** The command line with the command first: `-q pull x` → `pull x -q`. */
export function commandFirst(argv: readonly string[]): string[] {
  let leading = 0;
  while (leading < argv.length && LEADING_OPTIONS.has(argv[leading]!)) {
    leading++;
  }
  return [...argv.slice(leading), ...argv.slice(0, leading)];
}

export interface ParsedCommand {
  readonly values: Readonly<Record<string, string | boolean | Array<string | boolean> | undefined>>;
  readonly positionals: readonly string[];
}

/** Parses one command's arguments with Node's `util.parseArgs`; anything it refuses is a usage error. */
export function parseCommand(name: string, args: readonly string[]): ParsedCommand {
  const spec = COMMANDS[name]!;
  if (args.some((arg) => /^--?(token|access-token)(=|$)/i.test(arg))) {
    // Said without echoing the argument: what follows it may be the token itself.
    throw new CliError(
      'A token is never given on the command line (it would be seen in the process list and the shell history): set LAB_DATA_TOKEN, or use --token-file FILE.',
      Exit.usage,
    );
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { ...COMMON_OPTIONS, ...spec.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new CliError(`${errorText(error)}\nSee: lab-data ${name} --help`, Exit.usage);
  }
  if (parsed.values.help) {
    return { values: parsed.values, positionals: parsed.positionals };
  }
  if (
    parsed.positionals.length > spec.positionals ||
    (spec.requiresPositional && parsed.positionals.length === 0)
  ) {
    throw new CliError(`Usage: ${spec.usage}\nSee: lab-data ${name} --help`, Exit.usage);
  }
  const formats = ['json', 'jsonl', 'csv'].filter((format) => parsed.values[format] === true);
  if (formats.length > 1) {
    throw new CliError(
      `Choose one output format, not ${formats.map((format) => `--${format}`).join(' and ')}.`,
      Exit.usage,
    );
  }
  return { values: parsed.values, positionals: parsed.positionals };
}
