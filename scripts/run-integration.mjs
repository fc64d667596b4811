#!/usr/bin/env node
// Runs the integration suite inside a real VS Code extension host and prints its results.
//   default: each test host of bootstrap.mjs's TEST_HOSTS in turn (the floor, code-server 4.100.3 with
//   Node 20, then the newest, code-server 4.139.1 with Node 24), on 127.0.0.1, driven by Debian's
//   headless Chromium; LABDATA_TEST_HOSTS=floor (or newest, or a version) runs one;
//   LABDATA_TEST_HOST=electron: desktop VS Code through @vscode/test-electron (needs internet once).
// Phases, per host, in one browser profile so SecretStorage survives the reload between them:
//   1. out/test/integration/index.js        (the main suite; leaves the demo lab signed in)
//   2. out/test/integration/reload/index.js (after a window reload: the sign-in survived; signs out)
//   2b. out/test/integration/reload/signedOut/index.js (after a second reload: the sign-out lasted)
//   2c. out/test/integration/virtual/index.js (a virtual workspace, memfs:/demo, as its only folder)
//   3. out/test/ui/*.test.js                 (what a person sees, driven from Playwright), in a second
//      code-server with the packaged .vsix installed (what it holds is checked first)
//   LABDATA_TEST_PHASE=extension: phases 1 and 2 only; LABDATA_TEST_PHASE=ui: phase 3 only, on a fresh
//   profile and workspace (the UI checks set up what they need themselves). npm test runs the two
//   side by side, each in its own sandbox, so a host's UI checks need not wait for its main suite.
//   LABDATA_TEST_PHASE=bench: phase 1's activation and performance tests only (for npm run bench).
// Writes the summed counts (and each host's, with the titles of its failed tests) to LABDATA_RESULTS_FILE when set.
// Screenshots: the newest host's land in test-results/screenshots/ (the README's), another host's in
// test-results/screenshots/<host>/.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { format } from 'node:util';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_HOSTS, selectedTestHosts } from './bootstrap.mjs';
import {
  canBindSystemBundle,
  installFixtureExtension,
  installVsix,
  launchChromium,
  makeSandbox,
  startCodeServer,
  workbenchUrl,
} from './codeServer.mjs';
import { createRequire } from 'node:module';
import { untilExitOrStuck } from './phaseWatch.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The virtual workspace phase 2c and the UI checks open: a folder on no disk, served by the test
 * fixture test/fixtures/memfs-extension (registered by the phase itself; installed for the UI checks).
 */
const VIRTUAL_FOLDER = 'memfs:/demo';
const hostKind = process.env.LABDATA_TEST_HOST ?? 'code-server';
const counts = { passed: 0, failed: 0, skipped: 0, hosts: {} };
/** The host whose tests run now, its counts, and the titles of its failed tests. */
let current = { name: 'electron', label: 'desktop VS Code' };
let hostCounts = { passed: 0, failed: 0, skipped: 0, failures: [] };

function say(message) {
  process.stderr.write(`[integration ${current.name}] ${message}\n`);
}

function addCounts(result) {
  for (const target of [counts, hostCounts]) {
    target.passed += result.passed;
    target.failed += result.failed;
    target.skipped += result.skipped ?? 0;
  }
}

/** Notes a failure that is no mocha test's (a phase that timed out, the packaged extension). */
function failed(title) {
  hostCounts.failures.push(title);
}

function finish() {
  if (process.env.LABDATA_RESULTS_FILE) {
    writeFileSync(process.env.LABDATA_RESULTS_FILE, JSON.stringify(counts));
  }
  for (const [name, result] of Object.entries(counts.hosts)) {
    process.stderr.write(
      `[integration] ${name} host (${result.label}): ${result.passed} passed, ${result.failed} failed${result.failures.map((title) => `\n  failed in the ${name} host: ${title}`).join('')}\n`,
    );
  }
  return counts.failed === 0 ? 0 : 1;
}

/** Loads the workbench with a test suite and resolves with its counts once run() settles. */
async function runSuiteInPage(page, state, server, dirs, testsPath, name) {
  say(`phase: ${name}`);
  const started = Date.now();
  state.result = undefined;
  const exited = new Promise((resolveExit) => (state.onExit = resolveExit));
  await page.goto(
    workbenchUrl(server, { extensionPath: root, workspace: dirs.workspace, testsPath }),
    { waitUntil: 'domcontentloaded' },
  );
  const stuck = await untilExitOrStuck(state, exited, started);
  if (stuck) {
    say(`${name} ${stuck}`);
    failed(`${name}: ${stuck}`);
    return { passed: 0, failed: 1, skipped: 0 };
  }
  const code = await exited;
  const result = state.result ?? { passed: 0, failed: 1, skipped: 0 };
  if (code !== 0 && result.failed === 0) {
    say(`${name} exited with code ${code} before reporting results`);
    failed(`${name}: exited with code ${code} before reporting results`);
    result.failed = 1;
  }
  say(
    `${name}: ${result.passed} passed, ${result.failed} failed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return result;
}

/**
 * Phases 1 and 2 in `server` (with the smoke-test driver): the main suite, then the two window
 * reloads that check what it left. `bench` runs phase 1 only.
 */
async function runExtensionSuites(page, state, server, dirs, bench) {
  addCounts(
    await runSuiteInPage(
      page,
      state,
      server,
      dirs,
      join(root, 'out', 'test', 'integration', 'index.js'),
      'extension host suite',
    ),
  );
  if (bench) {
    return;
  }
  addCounts(
    await runSuiteInPage(
      page,
      state,
      server,
      dirs,
      join(root, 'out', 'test', 'integration', 'reload', 'index.js'),
      'after window reload',
    ),
  );
  addCounts(
    await runSuiteInPage(
      page,
      state,
      server,
      dirs,
      join(root, 'out', 'test', 'integration', 'reload', 'signedOut', 'index.js'),
      'after a second window reload',
    ),
  );
  addCounts(
    await runSuiteInPage(
      page,
      state,
      server,
      { ...dirs, workspace: VIRTUAL_FOLDER },
      join(root, 'out', 'test', 'integration', 'virtual', 'index.js'),
      'in a virtual workspace',
    ),
  );
}

async function runInCodeServer(host) {
  const dirs = makeSandbox('lab-data-it-');
  const resultsDir = join(root, 'test-results');
  const screenshotsDir =
    host === TEST_HOSTS.at(-1)
      ? join(resultsDir, 'screenshots')
      : join(resultsDir, 'screenshots', host.name);
  mkdirSync(screenshotsDir, { recursive: true });
  // LABDATA_TEST_GREP narrows the extension-host suite while developing (never set by npm test).
  // LABDATA_TEST_PHASE=bench (npm run bench) runs only activation and the tree's request counts,
  // which write their figures to test-results/bench-host.json.
  const phase = process.env.LABDATA_TEST_PHASE;
  const bench = phase === 'bench';
  /** The extension-host suites (phases 1 and 2); the UI checks (phase 3). */
  const runExtension = phase !== 'ui';
  const runUi = phase !== 'extension' && !bench;
  const grep = bench
    ? 'activates in a real|performance in the extension host'
    : process.env.LABDATA_TEST_GREP;
  const env = {
    // A lab that never answers is given up on after 5 s in the extension host suites, not 30 s:
    // the tests of such a lab (sign-in, Add Lab, Check Connection, Save All's retries) wait one
    // answer timeout each, or a few, in both hosts, and take their bounds from this. The mock labs
    // are local: a healthy answer takes milliseconds, and still came well within 5 s with two CPU
    // burners beside the suite. The UI checks run with 10 s (see below).
    LAB_DATA_ANSWER_TIMEOUT: '5',
    LABDATA_TEST_USER_DATA_DIR: dirs.userData,
    LABDATA_TEST_WORKSPACE: dirs.workspace,
    ...(grep ? { LABDATA_TEST_GREP: grep } : {}),
    ...(bench ? { LABDATA_BENCH_FILE: join(resultsDir, `bench-host-${host.name}.json`) } : {}),
  };
  // Certificates only the environment or only the OS trust store vouch for (issue 27): one CA the
  // code-server process gets as NODE_EXTRA_CA_CERTS, another added to its own copy of the OS bundle.
  const { makeTestCertificates } = createRequire(import.meta.url)(
    join(root, 'out', 'test', 'support', 'certificates.js'),
  );
  const extraCa = makeTestCertificates();
  const osCa = makeTestCertificates();
  // The CA that VS Code's own network stack trusts and Lab Data's own connection does not unless told
  // (test/integration/helpers.ts): VS Code 1.100 takes it from the suite as its test certificates;
  // VS Code 1.139's fetch no longer reads those, so it is in code-server's copy of the OS bundle too.
  const vscodeCa = makeTestCertificates();
  const systemBundle = join(dirs.sandbox ?? dirname(dirs.userData), 'os-ca-bundle.crt');
  writeFileSync(
    systemBundle,
    `${existsSync('/etc/ssl/certs/ca-certificates.crt') ? readFileSync('/etc/ssl/certs/ca-certificates.crt', 'utf8') : ''}\n${osCa.caPem}\n${vscodeCa.caPem}`,
  );
  const bound = canBindSystemBundle(systemBundle);
  process.once('exit', () => [extraCa, osCa, vscodeCa].forEach((certs) => certs.remove()));
  Object.assign(env, {
    NODE_EXTRA_CA_CERTS: extraCa.caFile,
    LABDATA_TEST_EXTRA_CA_DIR: extraCa.dir,
    LABDATA_TEST_OS_CA_DIR: osCa.dir,
    LABDATA_TEST_VSCODE_CA_DIR: vscodeCa.dir,
    LABDATA_TEST_OS_STORE: bound
      ? 'bound'
      : 'unshare --mount with a bind mount is not permitted here (it needs root)',
  });
  const started = Date.now();
  const server = runExtension
    ? await startCodeServer({
        ...dirs,
        env,
        host,
        ...(bound ? { systemBundle } : {}),
      })
    : undefined;
  if (server) {
    say(
      `code-server ${host.codeServerVersion} (Node ${host.nodeVersion ?? process.versions.node}) on ${server.url} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  const browser = await launchChromium(dirs.browser);
  let uiServer;
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    // A workbench's first document can take longer than Playwright's 30 s to load when the two cores
    // are shared with the other host and the unit tests (npm test runs them side by side): a busy
    // machine must not fail a phase before it starts. The tests' own waits keep their timeouts.
    page.setDefaultNavigationTimeout(120_000);
    const state = { result: undefined, onExit: () => undefined, heard: Date.now() };
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      state.heard = Date.now();
      const line = format(...(Array.isArray(args) ? args : [args]));
      const match = /^LABDATA_RESULT (\{.*\})$/.exec(line.trim());
      if (match) {
        state.result = JSON.parse(match[1]);
        return;
      }
      const failure = /^LABDATA_FAILED (.*)$/.exec(line.trim());
      if (failure) {
        failed(failure[1]);
        return;
      }
      (type === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
    });
    await page.exposeFunction('codeAutomationExit', (code) => state.onExit(code));
    // LABDATA_TEST_BROWSER_LOG=1 (while developing) shows the browser's own console and page errors,
    // the webviews' included.
    if (process.env.LABDATA_TEST_BROWSER_LOG) {
      page.on('console', (message) =>
        process.stderr.write(`[browser ${message.type()}] ${message.text().slice(0, 400)}\n`),
      );
      page.on('pageerror', (error) =>
        process.stderr.write(`[browser pageerror] ${error.message}\n`),
      );
    }

    if (server) {
      await runExtensionSuites(page, state, server, dirs, bench);
    }
    if (!runUi) {
      return;
    }

    // The UI checks run on Lab Data installed from its .vsix, in a second code-server on the same
    // profile and workspace (a fresh one when they run alone, LABDATA_TEST_PHASE=ui) and the same
    // test environment: that is each host's check that the package installs and works. In VS Code
    // 1.139 this code-server also goes without the smoke-test driver, which the suites above need:
    // with it, that VS Code shows no notification toasts and skips modal dialogs; without it, it
    // loads no development extension from the URL.
    say('phase: UI checks, in a code-server with Lab Data installed from its .vsix');
    await server?.stop();
    const vsix = join(dirs.sandbox, 'ui.vsix');
    addCounts(checkPackageContents(vsix, installVsix(host, dirs, vsix)));
    // The in-memory file system the virtual workspace check opens (memfs:/demo).
    installFixtureExtension(host, dirs, join(root, 'test', 'fixtures', 'memfs-extension'));
    // 10 s here: a UI check acts while a request to a silent lab is still pending (Refresh's
    // Cancel on a lab that keeps silent), and a browser driven under load needs the time.
    const uiEnv = { ...env, LAB_DATA_ANSWER_TIMEOUT: '10' };
    uiServer = await startCodeServer({
      ...dirs,
      env: uiEnv,
      host,
      smokeTestDriver: false,
      ...(bound ? { systemBundle } : {}),
    });
    const uiUrl = `${uiServer.url}/?folder=${encodeURIComponent(dirs.workspace)}`;
    const ui = await import(join(root, 'out', 'test', 'ui', 'runUi.js'));
    addCounts(
      await ui.runUiSuite({
        page,
        workbenchUrl: uiUrl,
        screenshotsDir,
        workspace: dirs.workspace,
        virtualWorkbenchUrl: `${uiServer.url}/?folder=${encodeURIComponent(VIRTUAL_FOLDER)}`,
        userDataDir: dirs.userData,
        // The environment this code-server runs with: the UI checks derive their bounds from it.
        hostEnv: uiEnv,
        onFailure: (title) => failed(`UI: ${title}`),
      }),
    );
  } finally {
    await browser.close().catch(() => undefined);
    await server?.stop();
    await uiServer?.stop();
    if (counts.failed === 0) {
      rmSync(dirs.sandbox, { recursive: true, force: true });
    } else {
      say(
        `kept ${dirs.sandbox} for inspection; code-server log:\n${(uiServer ?? server)?.serverLog.join('').slice(-4000)}`,
      );
    }
  }
}

/**
 * What the packaged .vsix holds (only files that run, nothing vsce warned about) and its size; that
 * it installs, activates and works is what the UI checks, run on it, prove.
 */
function checkPackageContents(vsix, vsceOutput) {
  const files = vsixEntries(vsix)
    .filter((name) => name.startsWith('extension/'))
    .map((name) => name.slice('extension/'.length));
  const allowed =
    /^(dist\/extension\.js|dist\/webview\/(pdfViewer|overview|reportCard)\.js|dist\/chartjs\/(chart\.umd\.min\.js|LICENSE\.md)|dist\/pdfjs\/(pdf\.min\.mjs|pdf\.worker\.min\.mjs|pdf_viewer\.mjs|LICENSE)|media\/.+|l10n\/.+|readme\.md|changelog\.md|LICENSE\.txt|package\.json|package\.nls\.json)$/;
  const problems = [];
  const unexpected = files.filter((file) => !allowed.test(file));
  if (unexpected.length > 0) {
    problems.push(`the .vsix holds files that do not run: ${unexpected.join(', ')}`);
  }
  for (const needed of ['dist/extension.js', 'package.json', 'dist/pdfjs/pdf.min.mjs']) {
    if (!files.includes(needed)) {
      problems.push(`the .vsix lacks ${needed}`);
    }
  }
  if (/WARNING/i.test(vsceOutput)) {
    problems.push(`vsce warned: ${vsceOutput}`);
  }
  const size = statSync(vsix).size;
  if (size > 2.5 * 1024 * 1024) {
    problems.push(`the .vsix is ${size} bytes; it must be at most 2.5 MB (pdf.js included)`);
  }
  // The size the documents give for it (the README's "about … KB") is this measurement's, within 10 %.
  const { vsixFigures, figuresOff } = createRequire(import.meta.url)(
    join(root, 'out', 'test', 'support', 'docFigures.js'),
  );
  const figures = vsixFigures();
  if (figures.length === 0) {
    problems.push('no document gives the size of lab-data.vsix (the README did)');
  }
  problems.push(...figuresOff(figures, size / 1000));
  if (problems.length > 0) {
    say(`packaged extension check failed:\n  ${problems.join('\n  ')}`);
    failed(`the packaged .vsix: ${problems.join('; ').slice(0, 500)}`);
    return { passed: 0, failed: 1, skipped: 0 };
  }
  say(`packaged extension: ${(size / 1024).toFixed(0)} KB .vsix with ${files.length} files`);
  return { passed: 1, failed: 0, skipped: 0 };
}

/** The names in a .vsix (a zip, as vsce writes it: no ZIP64), from its central directory. */
function vsixEntries(file) {
  const zip = readFileSync(file);
  // The end record is the last "PK\5\6" whose comment reaches exactly to the end of the file.
  let end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  while (end >= 0 && end + 22 + zip.readUInt16LE(end + 20) !== zip.length) {
    end = end > 0 ? zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]), end - 1) : -1;
  }
  if (end < 0) {
    throw new Error(`${file} is not a zip file`);
  }
  const count = zip.readUInt16LE(end + 10);
  const names = [];
  for (let at = zip.readUInt32LE(end + 16), i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) {
      throw new Error(`${file}: its central directory is not where its end record says`);
    }
    const nameLength = zip.readUInt16LE(at + 28);
    names.push(zip.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return names;
}

async function runInElectron() {
  const { runTests } = await import('@vscode/test-electron');
  const dirs = makeSandbox('lab-data-it-');
  for (const phase of [
    'index.js',
    join('reload', 'index.js'),
    join('reload', 'signedOut', 'index.js'),
  ]) {
    const resultsFile = join(dirs.sandbox, 'phase-results.json');
    const code = await runTests({
      extensionDevelopmentPath: root,
      extensionTestsPath: join(root, 'out', 'test', 'integration', phase),
      launchArgs: [
        dirs.workspace,
        '--disable-extensions',
        '--user-data-dir',
        dirs.userData,
        '--skip-welcome',
        '--skip-release-notes',
      ],
      extensionTestsEnv: {
        LABDATA_RESULTS_FILE: resultsFile,
        LABDATA_TEST_USER_DATA_DIR: dirs.userData,
        LABDATA_TEST_WORKSPACE: dirs.workspace,
      },
    }).catch((error) => {
      say(String(error));
      return 1;
    });
    const result = existsSync(resultsFile)
      ? JSON.parse(readFileSync(resultsFile, 'utf8'))
      : { passed: 0, failed: 1 };
    if (code !== 0 && result.failed === 0) {
      result.failed = 1;
    }
    addCounts(result);
  }
  say('UI checks run only in the code-server host (they drive the browser page).');
  rmSync(dirs.sandbox, { recursive: true, force: true });
}

/** Runs `body` as one host's tests, and records that host's counts under its name. */
async function asHost(name, label, body) {
  current = { name, label };
  hostCounts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  try {
    await body();
  } catch (error) {
    say(error instanceof Error ? (error.stack ?? error.message) : String(error));
    failed(`the run stopped: ${error instanceof Error ? error.message : String(error)}`);
    addCounts({ passed: 0, failed: 1 });
  }
  counts.hosts[name] = { label, ...hostCounts };
}

if (hostKind === 'electron') {
  await asHost('electron', 'desktop VS Code through @vscode/test-electron', runInElectron);
} else {
  let hosts = [];
  try {
    hosts = selectedTestHosts();
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    counts.failed++;
  }
  for (const testHost of hosts) {
    await asHost(
      testHost.name,
      `code-server ${testHost.codeServerVersion}, Node ${testHost.nodeVersion ?? process.versions.node}`,
      () => runInCodeServer(testHost),
    );
  }
}
// Exit explicitly: the browser driver and mocha may keep handles open after everything is stopped.
process.exit(finish());
