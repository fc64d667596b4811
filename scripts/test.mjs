#!/usr/bin/env node
// `npm test`: installs what is missing (npm packages, Debian packages, the code-server test hosts),
// builds, then runs every independent stage side by side: the lint, the unit tests (plain Node,
// mocha --parallel), the command-line tool's tests again under each other host's Node, the demo
// check, the Python and R readers' tests (scripts/test-python.mjs, scripts/test-r.mjs, when present),
// and the integration and UI tests in each VS Code test host (bootstrap.mjs's TEST_HOSTS: the floor
// we support and the newest; LABDATA_TEST_HOSTS=floor or newest runs one), a host's extension-host
// suites and its UI checks as two stages in their own sandboxes, the UI checks started once the
// unit tests and the demo check are done. It ends with each stage's line and time, the total
// time, and one line `N passed, N failed` that sums them all. Exits non-zero on any failure.
import { spawn, spawnSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { selectedTestHosts } from './bootstrap.mjs';
import { packageExtension } from './codeServer.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const scratch = mkdtempSync(join(tmpdir(), 'lab-data-test-'));
const only = process.argv.includes('--unit')
  ? 'unit'
  : process.argv.includes('--integration')
    ? 'integration'
    : 'all';

/**
 * Runs one step, its output shown as it comes; resolves with its exit status. It waits without
 * blocking this process, which collects the test hosts' output while they run (a host whose output
 * pipe filled while this process sat in a synchronous wait would stand still). `background` lowers
 * its priority, for checks no host waits for (the lint), so on two cores they take what the hosts
 * leave.
 */
async function step(title, command, args, { env = {}, background = false, cwd = root } = {}) {
  process.stderr.write(`\n[test] ${title}\n`);
  const stepStarted = Date.now();
  const child = spawn(command, args, {
    cwd,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (background) {
    try {
      setPriority(child.pid, 10);
    } catch {
      // Not permitted here: it runs at the usual priority.
    }
  }
  const status = await new Promise((done) => child.on('close', (code) => done(code ?? 1)));
  times.push(`${title}: ${seconds(Date.now() - stepStarted)}`);
  return status;
}

/** A duration as the summary says it: `412 s`. */
function seconds(ms) {
  return `${(ms / 1000).toFixed(0)} s`;
}

/** The set-up steps' times (`compiling …: 20 s`), said before the stages' lines at the end. */
const times = [];

function readCounts(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const total = { passed: 0, failed: 0, skipped: 0 };
/** Each part's own line for the end (`floor host (…): N passed, N failed`), with what failed in it. */
const parts = [];
function add(name, status, file, ms) {
  const took = ms === undefined ? '' : ` (${seconds(ms)})`;
  const counts = readCounts(file);
  if (!counts) {
    process.stderr.write(`[test] ${name}: no results were reported (exit code ${status})\n`);
    total.failed += 1;
    parts.push(`${name}: no results were reported (exit code ${status})${took}`);
    return;
  }
  const failed = counts.failed + (status !== 0 && counts.failed === 0 ? 1 : 0);
  total.passed += counts.passed;
  total.failed += failed;
  total.skipped += counts.skipped ?? 0;
  const failures = [
    ...(counts.failures ?? []),
    ...Object.values(counts.hosts ?? {}).flatMap((host) => host.failures ?? []),
  ];
  parts.push(
    `${name}: ${counts.passed} passed, ${failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}${took}${failures.map((title) => `\n    failed in ${name}: ${title}`).join('')}`,
  );
}

/** A stage that counts as one check (the lint, the demo): passed or failed, with its time. */
function addCheck(name, ok, ms) {
  total.passed += ok ? 1 : 0;
  total.failed += ok ? 0 : 1;
  parts.push(`${name}: ${ok ? 'passed' : 'failed'} (${seconds(ms)})`);
}

/**
 * Runs Node with `args` beside other work, its output kept in a file and printed under `title` when
 * it ends (so the log reads in order, one part after another). Resolves with its exit status and
 * how long it took. `background` lowers its priority (see step).
 */
async function besides(title, args, env = {}, { background = false } = {}) {
  const logFile = join(scratch, `${title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.log`);
  const log = createWriteStream(logFile);
  const stageStarted = Date.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  if (background) {
    try {
      setPriority(child.pid, 10);
    } catch {
      // Not permitted here: it runs at the usual priority.
    }
  }
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const status = await new Promise((done) => child.on('close', (code) => done(code ?? 1)));
  const ms = Date.now() - stageStarted;
  await new Promise((done) => log.end(done));
  process.stderr.write(`\n[test] ${title} (${seconds(ms)})\n${readFileSync(logFile, 'utf8')}`);
  return { status, ms };
}

/** Mocha as the unit tests run it (.mocharc.json's reporter and guard), its files across workers. */
function mochaArgs(jobs, ...rest) {
  return [
    join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'),
    // Test files run side by side in worker processes: most of their time is spent waiting (on
    // subprocesses, on a lab that is slow on purpose), not computing. processGuard's root hooks run
    // in every worker; the summary reporter counts in this process.
    '--parallel',
    '--jobs',
    String(jobs),
    ...rest,
  ];
}

/**
 * The packed `lab-data` again under each host's own Node (its `#!/usr/bin/env node` finds the first
 * on PATH): the tool's floor is the runner's Node 20, analysts may run Node 24. It runs beside the
 * demo check (they share nothing: the demo uses the built extension, these tests pack cli/).
 */
async function cliTestsUnderHostNodes() {
  for (const host of hosts.filter((h) => h.nodeVersion)) {
    const cliFile = join(scratch, `cli-${host.name}.json`);
    const PATH = `${dirname(host.nodeBinary)}:${process.env.PATH ?? ''}`;
    const found = spawnSync('node', ['--version'], {
      env: { ...process.env, PATH },
      encoding: 'utf8',
    });
    if (found.stdout?.trim() !== `v${host.nodeVersion}`) {
      process.stderr.write(
        `[test] the tool would run under ${found.stdout}, not Node ${host.nodeVersion}\n`,
      );
      total.failed += 1;
      continue;
    }
    const { status, ms } = await besides(
      `the command-line tool's tests under Node ${host.nodeVersion} (${host.nodeBinary})`,
      mochaArgs(
        3,
        '--no-config',
        '--reporter',
        './out/test/support/summaryReporter.js',
        '--require',
        './out/test/support/processGuard.js',
        '--require',
        './out/test/support/leftoverChildren.js',
        '--timeout',
        '20000',
        '--slow',
        '1000',
        'out/test/cli/**/*.test.js',
      ),
      { LABDATA_RESULTS_FILE: cliFile, PATH, ...packedTool },
    );
    add(`CLI tests (Node ${host.nodeVersion})`, status, cliFile, ms);
  }
}

/** How many mocha workers the unit tests use: their files mostly wait, so more than the cores. */
const UNIT_JOBS = 4;
/** LABDATA_CLI_TARBALL, once the tool is packed: every test process installs that tarball. */
let packedTool = {};
let hosts;
try {
  hosts = selectedTestHosts();
} catch (error) {
  process.stderr.write(`[test] ${error.message}\n`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
// Unit tests alone still need the hosts' Node binaries: the command-line tool is tested under each.
const bootstrapArgs = only === 'unit' ? ['--test-node'] : ['--test-host'];
if (
  (await step('installing what is missing', process.execPath, [
    join(root, 'scripts', 'bootstrap.mjs'),
    ...bootstrapArgs,
  ])) !== 0
) {
  process.exit(1);
}
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
// Compiled files of sources that were moved or deleted would otherwise still run as tests.
rmSync(join(root, 'out'), { recursive: true, force: true });
if (
  (await step('compiling sources and tests', process.execPath, [
    tsc,
    '-p',
    'tsconfig.test.json',
  ])) !== 0 ||
  (await step('bundling the extension', process.execPath, ['esbuild.js'])) !== 0
) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
// Every stage from here on runs side by side: the test hosts, the lint, the unit tests, the tool's
// tests under the hosts' Node, the demo check, the Python and R readers' tests. They share nothing
// (each starts its own servers on free ports), and most of their time is spent waiting, so on two
// cores the whole run is about as long as the slower host. The lint runs at a lower priority: no
// one waits for it.
// Both hosts run the extension from the same dist/, so it is packaged once first (with the
// production build vsce's prepublish makes) and neither host packages it again (LABDATA_VSIX).
/** The extension packaged once (undefined when packaging failed or only unit tests run). */
let vsix;
if (only !== 'unit') {
  vsix = join(scratch, 'lab-data.vsix');
  const packagingStarted = Date.now();
  process.stderr.write('\n[test] packaging the extension once for both hosts (vsce package)\n');
  const packaged = packageExtension(vsix);
  writeFileSync(`${vsix}.log`, `${packaged.stdout ?? ''}${packaged.stderr ?? ''}`);
  if (packaged.status !== 0) {
    process.stderr.write(`${packaged.stdout ?? ''}${packaged.stderr ?? ''}`);
    vsix = undefined;
  }
  times.push(`packaging the extension: ${seconds(Date.now() - packagingStarted)}`);
}
if (only !== 'integration') {
  // The command-line tool packed once (its prepack builds cli/dist/lab-data.js) for every test
  // process that installs it: test files running side by side must not each rebuild the bundle
  // while another packs it (test/cli/packedTool.ts).
  const packDir = join(scratch, 'cli-pack');
  rmSync(packDir, { recursive: true, force: true });
  mkdirSync(packDir);
  const packStatus = await step(
    'packing the command-line tool once (npm pack in cli/)',
    process.platform === 'win32' ? 'npm.cmd' : 'npm',
    ['pack', '--pack-destination', packDir, '--silent'],
    { cwd: join(root, 'cli') },
  );
  const tarball = readdirSync(packDir).find((name) => name.endsWith('.tgz'));
  if (packStatus !== 0 || !tarball) {
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  packedTool = { LABDATA_CLI_TARBALL: join(packDir, tarball) };
}
/** Each stage's promise; its part of the summary is added when it ends, in this order. */
const stages = [];
/**
 * One part of a host's tests (LABDATA_TEST_PHASE: `extension`, its extension-host suites, or `ui`,
 * its UI checks), in its own sandbox, started once `ready` settles.
 */
function hostPart(host, phase, what, ready = Promise.resolve()) {
  const file = join(scratch, `integration-${host.name}-${phase}.json`);
  const label = `${host.name} host, ${what} (code-server ${host.codeServerVersion}, Node ${host.nodeVersion ?? process.versions.node})`;
  return ready
    .then(() => {
      process.stderr.write(`[test] ${label}: started, shown when done\n`);
      return besides(label, [join(root, 'scripts', 'run-integration.mjs')], {
        LABDATA_RESULTS_FILE: file,
        LABDATA_TEST_HOSTS: host.name,
        LABDATA_TEST_PHASE: phase,
        ...(vsix ? { LABDATA_VSIX: vsix } : {}),
      });
    })
    .then(
      ({ status, ms }) =>
        () =>
          add(label, status, file, ms),
    );
}
/**
 * The UI checks wait for this: the unit tests and the demo check (each host's extension-host suites
 * run from the start), so that their workbenches do not start in the same burst as the demo's and
 * the mocha workers. Most of the suites' time is spent waiting on labs that stall on purpose, so the
 * UI checks fill the cores the other stages leave, rather than each host's UI checks waiting for
 * its own suites to end.
 */
let uiReady = Promise.resolve();
if (only !== 'unit') {
  for (const host of hosts) {
    stages.push(hostPart(host, 'extension', 'extension-host suites'));
  }
}
// The rules the code is held to (the PDF viewer's browser code type-checks; imports run downward
// only, the core never imports vscode, no floating promises) count as a check, and so does its one
// format (Prettier, width 100: `npm run format` applies it).
stages.push(
  (async () => {
    const checks = [
      ['type-checking the PDF viewer (browser code)', [tsc, '-p', 'tsconfig.webview.json']],
      ['lint (ESLint)', [join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '.']],
      [
        'format (Prettier --check)',
        [
          join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'),
          '--check',
          '--log-level',
          'warn',
          '.',
        ],
      ],
    ];
    let ok = true;
    let ms = 0;
    for (const [title, args] of checks) {
      const ran = await besides(title, args, {}, { background: true });
      ok &&= ran.status === 0;
      ms += ran.ms;
    }
    return () => addCheck('lint, types of the PDF viewer and format', ok, ms);
  })(),
);
if (only !== 'integration') {
  const file = join(scratch, 'unit.json');
  process.stderr.write('[test] unit tests (mocha, plain Node): started, shown when done\n');
  const unit = besides(
    'unit and CLI tests (mocha --parallel, plain Node, mock lab on 127.0.0.1)',
    mochaArgs(UNIT_JOBS),
    { LABDATA_RESULTS_FILE: file, ...packedTool },
  );
  stages.push(
    unit.then(
      ({ status, ms }) =>
        () =>
          add(`unit and CLI tests (Node ${process.versions.node})`, status, file, ms),
    ),
  );
  // Once the unit tests' workers are done, the tool's tests under the hosts' Node, beside the demo
  // check: started together with everything else, the burst of new processes (two workbenches, the
  // demo's, the mocha workers) left a workbench waiting over a minute for its first page.
  const after = unit.then(() => undefined);
  stages.push(after.then(cliTestsUnderHostNodes).then(() => () => undefined));
  const waitedFor = [after];
  if (only === 'all') {
    // The main job, as a new user runs it: the demo lab and VS Code, signed in, listing reports.
    const demo = after.then(() =>
      besides(
        'demo check (npm run demo -- --check)',
        [join(root, 'scripts', 'demo.mjs'), '--check', '--built'],
        vsix ? { LABDATA_VSIX: vsix } : {},
      ),
    );
    waitedFor.push(demo);
    stages.push(
      demo.then(
        ({ status, ms }) =>
          () =>
            addCheck('demo check', status === 0, ms),
      ),
    );
  }
  uiReady = Promise.allSettled(waitedFor);
}
if (only !== 'unit') {
  for (const host of hosts) {
    stages.push(hostPart(host, 'ui', 'UI checks', uiReady));
  }
}
if (only !== 'integration') {
  // The readers for analysts (python/, r/), each against its own mock lab and nginx on free ports.
  for (const [name, script] of [
    ['Python reader tests (pytest)', 'test-python.mjs'],
    ['R reader tests (testthat)', 'test-r.mjs'],
  ]) {
    const path = join(root, 'scripts', script);
    if (!existsSync(path)) {
      continue;
    }
    const file = join(scratch, `${script}.json`);
    process.stderr.write(`[test] ${name}: started, shown when done\n`);
    stages.push(
      besides(name, [path], { LABDATA_RESULTS_FILE: file }).then(
        ({ status, ms }) =>
          () =>
            add(name, status, file, ms),
      ),
    );
  }
}
// Each stage's part of the summary, in the order they were started (the floor host first).
for (const addPart of await Promise.all(stages)) {
  addPart();
}
rmSync(scratch, { recursive: true, force: true });
process.stderr.write(
  `\n[test] finished in ${seconds(Date.now() - started)}\n${[...times, ...parts].map((part) => `[test] ${part}\n`).join('')}[test] total: ${seconds(Date.now() - started)}\n`,
);
console.log(
  `${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`,
);
process.exit(total.failed === 0 && existsSync(root) ? 0 : 1);
