#!/usr/bin/env node
// `npm run demo`: installs what is missing, builds the extension, starts the mock lab with its demo
// data on loopback, and opens VS Code with the extension loaded, pointed at the lab and signed in
// with the demo token, in a throwaway profile that never touches your own settings or secrets.
// Desktop VS Code when the `code` command is there (and LABDATA_DEMO_WEB is not set); otherwise
// code-server on 127.0.0.1 with the address printed for a browser: the newest test host (what analysts
// run; LABDATA_TEST_HOSTS=floor chooses the oldest VS Code we support). Ctrl+C stops everything it started.
//   --check   open the demo in headless Chromium, prove the Reports view lists the demo reports,
//             save screenshots to test-results/screenshots/, then stop (used by CI).
//   --built   skip the install and the build: `npm test` has just built the extension (and packaged
//             it, LABDATA_VSIX), and runs this check beside the test hosts, which share dist/.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const DEMO_TOKEN = 'demo-full-access';
const run = (command, args) => {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.exit(result.status ?? 1);
  }
};
if (!process.argv.includes('--built')) {
  run(process.execPath, [join(root, 'scripts', 'bootstrap.mjs'), '--test-host']);
  run(process.execPath, [
    join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.test.json',
  ]);
  run(process.execPath, [join(root, 'esbuild.js')]);
}

const { installVsix, launchChromium, makeSandbox, startCodeServer, workbenchUrl } =
  await import('./codeServer.mjs');
const { selectedTestHosts } = await import('./bootstrap.mjs');
const host = selectedTestHosts().at(-1);
const { MockLabServer, DEMO_TOKENS } = await import(join(root, 'out', 'test', 'mock', 'server.js'));

const lab = new MockLabServer({ port: Number(process.env.LABDATA_DEMO_LAB_PORT ?? 0) });
const labUrl = await lab.start();
const dirs = makeSandbox('lab-data-demo-', { 'labData.baseUrl': labUrl });
const env = { LABDATA_DEMO_TOKEN: DEMO_TOKEN };
const desktop =
  !check &&
  !process.env.LABDATA_DEMO_WEB &&
  spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;

let stopEditor = async () => undefined;
let url;
if (desktop) {
  const child = spawn(
    'code',
    [
      '--new-window',
      '--wait',
      '--user-data-dir',
      dirs.userData,
      '--extensions-dir',
      dirs.extensions,
      `--extensionDevelopmentPath=${root}`,
      dirs.workspace,
    ],
    {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    },
  );
  child.on('exit', () => void stop());
  stopEditor = async () => {
    child.kill('SIGTERM');
  };
} else {
  // A VS Code that loads a development extension from the URL only with its smoke-test driver on
  // (1.139), which hides notifications and skips dialogs, gets Lab Data installed from its .vsix.
  const installed = host.workbenchOptions.length > 0;
  if (installed) {
    installVsix(host, dirs, join(dirs.sandbox, 'lab-data.vsix'));
  }
  const server = await startCodeServer({
    ...dirs,
    env,
    host,
    smokeTestDriver: !installed,
    // A fixed address to bookmark (LABDATA_DEMO_PORT); a free port otherwise.
    port: Number(process.env.LABDATA_DEMO_PORT ?? 0),
  });
  url = installed
    ? `${server.url}/?folder=${encodeURIComponent(dirs.workspace)}`
    : workbenchUrl(server, { extensionPath: root, workspace: dirs.workspace });
  stopEditor = () => server.stop();
}

process.stdout.write(
  [
    '',
    `Mock lab:   ${labUrl}  (${lab.reportsFor(DEMO_TOKEN).length} published reports, ${lab.data.clients.length} clients, ${lab.data.samples.length} samples)`,
    desktop
      ? 'VS Code:    a new desktop window (a throwaway profile)'
      : `VS Code:    ${url}  (code-server ${host.codeServerVersion})`,
    '',
    `${desktop ? 'In the new window' : 'Open the VS Code address in a browser and'} click the flask icon ("Lab Data") in the activity bar.`,
    `You are signed in with the demo token "${DEMO_TOKEN}". Other demo tokens (sign out, then sign in with one):`,
    ...Object.entries(DEMO_TOKENS).map(
      ([token, scope]) => `    ${token.padEnd(20)} ${scope.label}`,
    ),
    '',
    check ? 'Checking the demo in headless Chromium…' : 'Press Ctrl+C to stop the lab and VS Code.',
    '',
  ].join('\n'),
);

let stopping = false;
async function stop(code = 0) {
  if (stopping) {
    return;
  }
  stopping = true;
  await stopEditor();
  await lab.stop();
  rmSync(dirs.sandbox, { recursive: true, force: true });
  process.exit(code);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

if (check) {
  const shots = join(root, 'test-results', 'screenshots');
  mkdirSync(shots, { recursive: true });
  const browser = await launchChromium(dirs.browser, { width: 1400, height: 860 });
  let ok = false;
  let page;
  try {
    page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page
      .locator('.activitybar .action-item a[aria-label^="Lab Data"]')
      .first()
      .click({ timeout: 60_000 });
    const first = lab.reportsFor(DEMO_TOKEN)[0].report_id;
    await page
      .locator(`.monaco-list-row[aria-label^="Report ${first}"]`)
      .waitFor({ state: 'visible', timeout: 60_000 });
    const rows = await page.locator('.monaco-list-row[aria-label^="Report RPT-"]').count();
    await page.screenshot({ path: join(shots, 'demo-tree.png') });
    // The metadata document of the newest report, from its inline action.
    await page.locator(`.monaco-list-row[aria-label^="Report ${first}"]`).hover();
    await page
      .locator(
        `.monaco-list-row[aria-label^="Report ${first}"] .action-label[aria-label^="Open Metadata"]`,
      )
      .click({ timeout: 15_000 });
    await page
      .locator('.tab', { hasText: `${first}.json` })
      .waitFor({ state: 'visible', timeout: 30_000 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(shots, 'demo-metadata.png') });
    // Save it, and show the file in the Explorer.
    await page.locator(`.monaco-list-row[aria-label^="Report ${first}"]`).hover();
    await page
      .locator(
        `.monaco-list-row[aria-label^="Report ${first}"] .action-label[aria-label^="Save Report PDF"]`,
      )
      .click({ timeout: 15_000 });
    await page.keyboard.press('Control+Shift+E');
    await page
      .locator('.explorer-folders-view .monaco-list-row', { hasText: 'lab-reports' })
      .first()
      .click({ timeout: 30_000 });
    await page
      .locator('.explorer-folders-view .monaco-list-row', { hasText: `${first}.pdf` })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await page.screenshot({ path: join(shots, 'demo-saved-pdf.png') });
    process.stdout.write(
      `Demo check passed: the Reports view lists ${rows} report rows (first ${first}); screenshots in test-results/screenshots/demo-*.png\n`,
    );
    ok = true;
  } catch (error) {
    process.stderr.write(
      `Demo check failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    // What the screen showed then, and any message VS Code had up, for whoever looks into it.
    await page
      ?.screenshot({ path: join(shots, 'demo-failure.png') })
      .then(() =>
        process.stderr.write('The screen then: test-results/screenshots/demo-failure.png\n'),
      )
      .catch(() => undefined);
    const messages =
      (await page
        ?.locator('.notifications-toasts .notification-list-item-message')
        .allInnerTexts()
        .catch(() => [])) ?? [];
    messages.forEach((message) => process.stderr.write(`Message on screen: ${message}\n`));
  } finally {
    await browser.close().catch(() => undefined);
  }
  await stop(ok ? 0 : 1);
}
