#!/usr/bin/env node
// The R package's tests (r/, package `labdata`): installs it into a temporary library with
// `R CMD INSTALL`, has the fixture generator write real report folders (the packed `lab-data` tool and
// the core, from the mock lab; an nginx team cache), runs testthat on r/tests/testthat, and writes
// {"passed","failed","skipped","failures"} to LABDATA_RESULTS_FILE. Needs the compiled out/
// (`node node_modules/typescript/bin/tsc -p tsconfig.test.json`). Exits non-zero on any failure.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const resultsFile = process.env.LABDATA_RESULTS_FILE;
const scratch = mkdtempSync(join(tmpdir(), 'lab-data-r-'));

function finish(counts, code) {
  if (resultsFile) {
    writeFileSync(resultsFile, JSON.stringify(counts));
  }
  console.log(`R: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  for (const title of counts.failures) {
    console.log(`  failed: ${title}`);
  }
  rmSync(scratch, { recursive: true, force: true });
  process.exit(code);
}

function broken(title, detail) {
  if (detail) {
    process.stderr.write(`${detail}\n`);
  }
  finish({ passed: 0, failed: 1, skipped: 0, failures: [title] }, 1);
}

const generator = join(root, 'out', 'test', 'readers', 'makeFixtures.js');
if (!existsSync(generator)) {
  broken(
    'R tests: the fixture generator is not compiled',
    `${generator} is missing: run node node_modules/typescript/bin/tsc -p tsconfig.test.json first.`,
  );
}

const library = join(scratch, 'library');
const install = spawnSync(
  'sh',
  ['-c', 'mkdir -p "$1" && R CMD INSTALL --no-multiarch -l "$1" "$2"', 'install', library, 'r'],
  { cwd: root, encoding: 'utf8' },
);
if (install.status !== 0) {
  broken('R CMD INSTALL r', `${install.stdout}\n${install.stderr}`);
}

// The generator keeps running while the tests run (its nginx team cache serves them): it prints
// `ready DIR/index.json` once everything is written, and stops its servers when its input closes.
const fixtures = join(scratch, 'fixtures');
const made = spawn(process.execPath, [generator, fixtures], {
  cwd: root,
  stdio: ['pipe', 'pipe', 'inherit'],
});
let generatorOutput = '';
const generated = await new Promise((done) => {
  made.stdout.on('data', (chunk) => {
    generatorOutput += chunk;
    if (/^ready /m.test(generatorOutput)) {
      done('ready');
    }
  });
  made.on('exit', (code) => done(`failed (exit ${code})`));
});
if (generated !== 'ready') {
  broken(`R tests: the fixture generator ${generated}`, generatorOutput);
}

const countsFile = join(scratch, 'counts.json');
const program = `
options(testthat.progress.max_fails = Inf)
results <- testthat::test_dir(
  file.path(Sys.getenv("LABDATA_ROOT"), "r", "tests", "testthat"),
  reporter = testthat::ProgressReporter$new(show_praise = FALSE),
  package = "labdata", stop_on_failure = FALSE, stop_on_warning = FALSE, load_package = "installed"
)
table <- as.data.frame(results)
bad <- table$failed > 0 | table$error
skipped <- !bad & table$skipped
counts <- list(
  passed = sum(!bad & !skipped), failed = sum(bad), skipped = sum(skipped),
  failures = I(paste(table$file[bad], table$test[bad], sep = ": "))
)
writeLines(jsonlite::toJSON(counts, auto_unbox = TRUE), Sys.getenv("LABDATA_COUNTS"))
`;
const run = spawnSync('Rscript', ['--vanilla', '-e', program], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    R_LIBS: [library, process.env.R_LIBS].filter(Boolean).join(':'),
    LABDATA_ROOT: root,
    LABDATA_FIXTURES: fixtures,
    LABDATA_COUNTS: countsFile,
    NOT_CRAN: 'true',
    // The user's own caches and credentials are never read: each test names what it uses.
    XDG_CACHE_HOME: join(scratch, 'xdg-cache'),
    LAB_DATA_CACHE: '',
    LAB_DATA_CACHE_TOKEN: '',
    NETRC: join(scratch, 'no-netrc'),
  },
});
// Closing its input stops the generator's team cache; wait for it, so no nginx outlives the run.
await new Promise((done) => {
  made.on('exit', done);
  made.stdin.end();
  if (made.exitCode !== null) {
    done();
  }
});

let counts;
try {
  counts = JSON.parse(readFileSync(countsFile, 'utf8'));
} catch {
  broken('R tests: testthat did not finish', `Rscript exited with ${run.status}`);
}
counts.failures = [].concat(counts.failures ?? []);
if (counts.passed + counts.failed === 0) {
  broken('R tests: no test ran');
}
finish(counts, counts.failed > 0 || run.status !== 0 ? 1 : 0);
