#!/usr/bin/env node
// `npm test`: installs what is missing (npm packages, Debian packages, the code-server test hosts),
// builds, lints, runs the unit tests (plain Node), the command-line tool's tests again under each
// other host's Node, and the integration and UI tests in each VS Code test host (bootstrap.mjs's
// TEST_HOSTS: the floor we support and the newest; LABDATA_TEST_HOSTS=floor or newest runs one), and
// ends with one line `N passed, N failed` that sums them all. Exits non-zero on any failure.
import { spawn, spawnSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
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
async function step(title, command, args, { env = {}, background = false } = {}) {
  process.stderr.write(`\n[test] ${title}\n`);
  const child = spawn(command, args, {
    cwd: root,
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
  return new Promise((done) => child.on('close', (code) => done(code ?? 1)));
}

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
function add(name, status, file) {
  const counts = readCounts(file);
  if (!counts) {
    process.stderr.write(`[test] ${name}: no results were reported (exit code ${status})\n`);
    total.failed += 1;
    parts.push(`${name}: no results were reported (exit code ${status})`);
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
    `${name}: ${counts.passed} passed, ${failed} failed${failures.map((title) => `\n    failed in ${name}: ${title}`).join('')}`,
  );
}

/**
 * Runs Node with `args` beside other work, its output kept in a file and printed under `title` when
 * it ends (so the log reads in order, one part after another). Resolves with its exit status.
 */
async function besides(title, args, env = {}) {
  const logFile = join(scratch, `${title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const status = await new Promise((done) => child.on('close', (code) => done(code ?? 1)));
  await new Promise((done) => log.end(done));
  process.stderr.write(`\n[test] ${title}\n${readFileSync(logFile, 'utf8')}`);
  return status;
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
    const status = await besides(
      `the command-line tool's tests under Node ${host.nodeVersion} (${host.nodeBinary})`,
      [
        join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'),
        '--no-config',
        '--reporter',
        './out/test/support/summaryReporter.js',
        '--require',
        './out/test/support/processGuard.js',
        '--timeout',
        '20000',
        '--slow',
        '1000',
        'out/test/cli/**/*.test.js',
      ],
      { LABDATA_RESULTS_FILE: cliFile, PATH },
    );
    add(`CLI tests (Node ${host.nodeVersion})`, status, cliFile);
  }
}

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
// The test hosts run side by side, and beside the lint, the unit tests and the demo check. On two
// cores the whole run is as long as the slower host, and every part competes for the CPU with it:
// the lint runs at a lower priority.
// Both run the extension from the same dist/, so it is packaged once first (with the production
// build vsce's prepublish makes) and neither host packages it again (LABDATA_VSIX).
const hostRuns = [];
/** The extension packaged once (undefined when packaging failed or only unit tests run). */
let vsix;
if (only !== 'unit') {
  vsix = join(scratch, 'lab-data.vsix');
  process.stderr.write('\n[test] packaging the extension once for both hosts (vsce package)\n');
  const packaged = packageExtension(vsix);
  writeFileSync(`${vsix}.log`, `${packaged.stdout ?? ''}${packaged.stderr ?? ''}`);
  if (packaged.status !== 0) {
    process.stderr.write(`${packaged.stdout ?? ''}${packaged.stderr ?? ''}`);
    vsix = undefined;
  }
  for (const host of hosts) {
    const file = join(scratch, `integration-${host.name}.json`);
    const label = `${host.name} host (code-server ${host.codeServerVersion}, Node ${host.nodeVersion ?? process.versions.node})`;
    process.stderr.write(
      `[test] integration and UI tests in the ${label}: started, shown when done\n`,
    );
    hostRuns.push(
      besides(
        `integration and UI tests in the ${label}`,
        [join(root, 'scripts', 'run-integration.mjs')],
        {
          LABDATA_RESULTS_FILE: file,
          LABDATA_TEST_HOSTS: host.name,
          ...(vsix ? { LABDATA_VSIX: vsix } : {}),
        },
      ).then((status) => ({ label, status, file })),
    );
  }
}
{
  // The rules the code is held to (the PDF viewer's browser code type-checks; imports run downward
  // only, the core never imports vscode, no floating promises) count as a check, and so does its
  // one format (Prettier, width 100: `npm run format` applies it).
  const webview = await step(
    'type-checking the PDF viewer (browser code)',
    process.execPath,
    [tsc, '-p', 'tsconfig.webview.json'],
    { background: true },
  );
  const eslint = await step(
    'lint (ESLint)',
    process.execPath,
    [join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '.'],
    { background: true },
  );
  const prettier = await step(
    'format (Prettier --check)',
    process.execPath,
    [
      join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'),
      '--check',
      '--log-level',
      'warn',
      '.',
    ],
    { background: true },
  );
  const status = webview === 0 && eslint === 0 && prettier === 0 ? 0 : 1;
  total.passed += status === 0 ? 1 : 0;
  total.failed += status === 0 ? 0 : 1;
}
if (only !== 'integration') {
  const file = join(scratch, 'unit.json');
  const status = await step(
    'unit tests (mocha, plain Node, mock lab on 127.0.0.1)',
    process.execPath,
    [join(root, 'node_modules', 'mocha', 'bin', 'mocha.js')],
    { env: { LABDATA_RESULTS_FILE: file } },
  );
  add(`unit and CLI tests (Node ${process.versions.node})`, status, file);
}
if (only === 'all') {
  // The main job, as a new user runs it: the demo lab and VS Code, signed in, listing reports;
  // beside it, the tool's tests under the hosts' Node.
  const cli = cliTestsUnderHostNodes();
  process.stderr.write('\n[test] demo check (npm run demo -- --check)\n');
  const demo = spawn(process.execPath, [join(root, 'scripts', 'demo.mjs'), '--check', '--built'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...(vsix ? { LABDATA_VSIX: vsix } : {}) },
  });
  const status = await new Promise((done) => demo.on('close', (code) => done(code ?? 1)));
  total.passed += status === 0 ? 1 : 0;
  total.failed += status === 0 ? 0 : 1;
  await cli;
} else if (only === 'unit') {
  await cliTestsUnderHostNodes();
}
// In the order they were started (the floor first), each printed as it ends.
for (const run of hostRuns) {
  const { label, status, file } = await run;
  add(label, status, file);
}
rmSync(scratch, { recursive: true, force: true });
process.stderr.write(
  `\n[test] finished in ${((Date.now() - started) / 1000).toFixed(0)} s\n${parts.map((part) => `[test] ${part}\n`).join('')}`,
);
console.log(
  `${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`,
);
process.exit(total.failed === 0 && existsSync(root) ? 0 : 1);
