#!/usr/bin/env node
// Runs the integration suite inside a real VS Code extension host and prints its results.
//   default: code-server 4.100.3 (VS Code 1.100.3) on 127.0.0.1, driven by Debian's headless Chromium;
//   LABDATA_TEST_HOST=electron: desktop VS Code through @vscode/test-electron (needs internet once).
// Phases, in one browser profile so SecretStorage survives the reload between them:
//   1. out/test/integration/index.js        (the main suite; leaves the demo lab signed in)
//   2. out/test/integration/reload/index.js (after a window reload: the sign-in survived; signs out)
//   3. out/test/ui/*.test.js                 (what a person sees, driven from Playwright)
// Writes the summed counts to LABDATA_RESULTS_FILE when set.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { format } from 'node:util';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODE_SERVER_VERSION } from './bootstrap.mjs';
import { makeSandbox, startCodeServer, workbenchUrl } from './codeServer.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const host = process.env.LABDATA_TEST_HOST ?? 'code-server';
const PHASE_TIMEOUT_MS = 10 * 60_000;
const counts = { passed: 0, failed: 0, skipped: 0 };

function say(message) {
  process.stderr.write(`[integration] ${message}\n`);
}

function addCounts(result) {
  counts.passed += result.passed;
  counts.failed += result.failed;
  counts.skipped += result.skipped ?? 0;
}

function finish() {
  if (process.env.LABDATA_RESULTS_FILE) {
    writeFileSync(process.env.LABDATA_RESULTS_FILE, JSON.stringify(counts));
  }
  return counts.failed === 0 ? 0 : 1;
}

/** Loads the workbench with a test suite and resolves with its counts once run() settles. */
async function runSuiteInPage(page, state, server, dirs, testsPath, name) {
  say(`phase: ${name}`);
  const started = Date.now();
  state.result = undefined;
  const exited = new Promise((resolveExit) => (state.onExit = resolveExit));
  await page.goto(workbenchUrl(server, { extensionPath: root, workspace: dirs.workspace, testsPath }), { waitUntil: 'domcontentloaded' });
  const timeout = new Promise((r) => setTimeout(() => r('timeout'), PHASE_TIMEOUT_MS));
  const code = await Promise.race([exited, timeout]);
  if (code === 'timeout') {
    say(`${name} did not finish within ${PHASE_TIMEOUT_MS / 60_000} minutes`);
    return { passed: 0, failed: 1, skipped: 0 };
  }
  const result = state.result ?? { passed: 0, failed: 1, skipped: 0 };
  if (code !== 0 && result.failed === 0) {
    say(`${name} exited with code ${code} before reporting results`);
    result.failed = 1;
  }
  say(`${name}: ${result.passed} passed, ${result.failed} failed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

async function runInCodeServer() {
  const dirs = makeSandbox('lab-data-it-');
  const resultsDir = join(root, 'test-results');
  mkdirSync(join(resultsDir, 'screenshots'), { recursive: true });
  const env = { LABDATA_TEST_USER_DATA_DIR: dirs.userData, LABDATA_TEST_WORKSPACE: dirs.workspace };
  const started = Date.now();
  const server = await startCodeServer({ ...dirs, env });
  say(`code-server ${CODE_SERVER_VERSION} on ${server.url} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launchPersistentContext(dirs.browser, {
    executablePath: process.env.LABDATA_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    const state = { result: undefined, onExit: () => undefined };
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const line = format(...(Array.isArray(args) ? args : [args]));
      const match = /^LABDATA_RESULT (\{.*\})$/.exec(line.trim());
      if (match) {
        state.result = JSON.parse(match[1]);
        return;
      }
      (type === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
    });
    await page.exposeFunction('codeAutomationExit', (code) => state.onExit(code));

    addCounts(await runSuiteInPage(page, state, server, dirs, join(root, 'out', 'test', 'integration', 'index.js'), 'extension host suite'));
    addCounts(await runSuiteInPage(page, state, server, dirs, join(root, 'out', 'test', 'integration', 'reload', 'index.js'), 'after window reload'));

    say('phase: UI checks');
    const ui = await import(join(root, 'out', 'test', 'ui', 'runUi.js'));
    addCounts(await ui.runUiSuite({ page, workbenchUrl: workbenchUrl(server, { extensionPath: root, workspace: dirs.workspace }), screenshotsDir: join(resultsDir, 'screenshots'), workspace: dirs.workspace }));
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
    if (counts.failed === 0) {
      rmSync(dirs.sandbox, { recursive: true, force: true });
    } else {
      say(`kept ${dirs.sandbox} for inspection; code-server log:\n${server.serverLog.join('').slice(-4000)}`);
    }
  }
}

async function runInElectron() {
  const { runTests } = await import('@vscode/test-electron');
  const dirs = makeSandbox('lab-data-it-');
  for (const phase of ['index.js', join('reload', 'index.js')]) {
    const resultsFile = join(dirs.sandbox, 'phase-results.json');
    const code = await runTests({
      extensionDevelopmentPath: root,
      extensionTestsPath: join(root, 'out', 'test', 'integration', phase),
      launchArgs: [dirs.workspace, '--disable-extensions', '--user-data-dir', dirs.userData, '--skip-welcome', '--skip-release-notes'],
      extensionTestsEnv: { LABDATA_RESULTS_FILE: resultsFile, LABDATA_TEST_USER_DATA_DIR: dirs.userData, LABDATA_TEST_WORKSPACE: dirs.workspace },
    }).catch((error) => {
      say(String(error));
      return 1;
    });
    const result = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : { passed: 0, failed: 1 };
    if (code !== 0 && result.failed === 0) {
      result.failed = 1;
    }
    addCounts(result);
  }
  say('UI checks run only in the code-server host (they drive the browser page).');
  rmSync(dirs.sandbox, { recursive: true, force: true });
}

try {
  if (host === 'electron') {
    await runInElectron();
  } else {
    await runInCodeServer();
  }
} catch (error) {
  say(error instanceof Error ? error.stack ?? error.message : String(error));
  counts.failed++;
}
// Exit explicitly: the browser driver and mocha may keep handles open after everything is stopped.
process.exit(finish());
