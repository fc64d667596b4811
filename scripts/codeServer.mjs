// Starts code-server (VS Code server + web workbench) of one test host (bootstrap.mjs's TEST_HOSTS) on
// loopback, and Debian's headless Chromium to show it, for the integration tests and the demo. Only
// Node's standard library; code-server itself (and its Node) is provisioned by bootstrap.mjs.
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { floorHost } from './bootstrap.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * A throwaway VS Code profile: user data, extensions, a workspace and a browser profile in one
 * temporary folder, with quiet user settings plus `userSettings`.
 */
export function makeSandbox(prefix, userSettings = {}) {
  const sandbox = mkdtempSync(join(tmpdir(), prefix));
  const dirs = {
    sandbox,
    userData: join(sandbox, 'user-data'),
    extensions: join(sandbox, 'extensions'),
    workspace: join(sandbox, 'workspace'),
    browser: join(sandbox, 'browser'),
  };
  for (const dir of Object.values(dirs)) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(
    join(dirs.workspace, 'README.md'),
    '# Analysis workspace\n\nReports land in lab-reports/.\n',
  );
  // The user's settings: keep the window quiet and deterministic.
  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(
    join(dirs.userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'extensions.autoCheckUpdates': false,
        'telemetry.telemetryLevel': 'off',
        'security.workspace.trust.enabled': false,
        ...userSettings,
      },
      null,
      2,
    ),
  );
  return dirs;
}

async function waitForHttp(url, timeoutMs, isAlive) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive()) {
      throw new Error('code-server exited before it was ready');
    }
    try {
      const response = await fetch(url, { redirect: 'manual' });
      await response.arrayBuffer();
      if (response.status < 500) {
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer at ${url} within ${timeoutMs / 1000} s`);
}

/** Starts code-server on loopback; returns its URL and a stop function that ends only what it started. */
/**
 * Whether a child can be given its own copy of the operating system's certificate bundle (a private
 * mount namespace with a bind mount, as root), the file VS Code and Lab Data read as the OS trust
 * store on Linux. Nothing on the machine changes: the mount exists only inside the child's namespace.
 */
export function canBindSystemBundle(bundle) {
  const probe = spawnSync(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      `mount --bind "$0" ${SYSTEM_BUNDLE}`,
      bundle,
    ],
    { stdio: 'ignore' },
  );
  return probe.status === 0;
}

const SYSTEM_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

export async function startCodeServer({
  sandbox,
  userData,
  extensions,
  workspace,
  env = {},
  systemBundle,
  host = floorHost,
  smokeTestDriver = true,
  port: requestedPort,
  locale,
}) {
  if (!existsSync(host.codeServerEntry) || !existsSync(host.nodeBinary)) {
    throw new Error(
      `the ${host.name} test host is not provisioned at ${host.codeServerDir}; run: node scripts/bootstrap.mjs --test-host`,
    );
  }
  const port = requestedPort || (await freePort());
  const configFile = join(sandbox, 'code-server.yaml');
  writeFileSync(configFile, 'auth: none\n');
  const args = [
    host.codeServerEntry,
    '--config',
    configFile,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--user-data-dir',
    userData,
    '--extensions-dir',
    extensions,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    // The display language (VS Code's `vscode.env.language`), e.g. the pseudo-locale `qps-ploc`.
    ...(locale ? ['--locale', locale] : []),
    workspace,
  ];
  // With `systemBundle`, code-server sees that file as the OS trust store (see canBindSystemBundle).
  const command = systemBundle
    ? [
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          'sh',
          '-c',
          `mount --bind "$0" ${SYSTEM_BUNDLE} && shift && exec "$@"`,
          systemBundle,
          'node',
          host.nodeBinary,
          ...args,
        ],
      ]
    : [host.nodeBinary, args];
  // The extension keeps saved reports in the user's cache folder (XDG_CACHE_HOME); a test host keeps
  // its own in the sandbox, so no run writes into the machine's ~/.cache.
  const cacheHome = join(sandbox, 'xdg-cache');
  const child = spawn(command[0], command[1], {
    env: {
      ...process.env,
      XDG_CACHE_HOME: cacheHome,
      ...(smokeTestDriver ? hostEnv(host) : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: false,
  });
  let alive = true;
  const serverLog = [];
  child.on('exit', () => (alive = false));
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8');
    stream.on('data', (text) => serverLog.push(text));
  }
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/healthz`, 60_000, () => alive);
  } catch (error) {
    process.stderr.write(serverLog.join(''));
    child.kill('SIGTERM');
    throw error;
  }
  return {
    url,
    port,
    serverLog,
    async stop() {
      if (!alive) {
        return;
      }
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * What a host's code-server needs in its environment: VS Code 1.139 loads the development extension
 * and the test suite named in the workbench URL only with its smoke-test driver on, which code-server
 * 4.139 passes through from VSCODE_OPTIONS (it refuses --enable-smoke-test-driver itself).
 */
export function hostEnv(host) {
  return host.workbenchOptions.length > 0
    ? { VSCODE_OPTIONS: host.workbenchOptions.join(' ') }
    : {};
}

/**
 * Packages the extension into `vsix` with vsce, after the production build of dist/ (vsce's
 * `vscode:prepublish`), and returns vsce's exit status and output. When `npm test` packaged it once already
 * (LABDATA_VSIX, with vsce's output beside it in LABDATA_VSIX.log), copies that instead: the two
 * test hosts run side by side from the same dist/, so neither may rebuild it under the other.
 */
export function packageExtension(vsix) {
  const prebuilt = process.env.LABDATA_VSIX;
  if (prebuilt && existsSync(prebuilt)) {
    copyFileSync(prebuilt, vsix);
    const log = `${prebuilt}.log`;
    return { status: 0, stdout: existsSync(log) ? readFileSync(log, 'utf8') : '', stderr: '' };
  }
  // vsce lists every file below its folder (the test hosts' 18,000 in .cache/ among them) and matches
  // each against .vscodeignore, which takes it 17 s here. So it packages a folder holding only what
  // .vscodeignore lets through, after the production build its `vscode:prepublish` would make.
  const build = spawnSync(process.execPath, [join(root, 'esbuild.js'), '--production'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (build.status !== 0) {
    return build;
  }
  const stage = mkdtempSync(join(tmpdir(), 'lab-data-package-'));
  try {
    const shipped = readFileSync(join(root, '.vscodeignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1).replace(/\/\*\*$/, ''));
    // Only files and whole folders are copied; a pattern or a missing file is said, not skipped.
    const problem = shipped.find((name) => /[*?[\]{}]/.test(name) || !existsSync(join(root, name)));
    if (problem !== undefined) {
      return {
        status: 1,
        stdout: '',
        stderr: `.vscodeignore lets "${problem}" through: packaging copies only files and folders (name/**) that exist\n`,
      };
    }
    for (const name of shipped) {
      cpSync(join(root, name), join(stage, name), { recursive: true });
    }
    copyFileSync(join(root, '.vscodeignore'), join(stage, '.vscodeignore'));
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    if (manifest.scripts['vscode:prepublish'] !== 'node esbuild.js --production') {
      return {
        status: 1,
        stdout: '',
        stderr: `vscode:prepublish is now "${manifest.scripts['vscode:prepublish']}": packageExtension (scripts/codeServer.mjs) builds as it did, so say there what it should run\n`,
      };
    }
    delete manifest.scripts['vscode:prepublish']; // built above, from the sources this folder lacks
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
    return spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--out', vsix], {
      cwd: stage,
      encoding: 'utf8',
    });
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Packages the extension into `vsix` and installs it into the profile's extensions folder, for
 * `host`'s code-server. Returns what vsce printed.
 */
export function installVsix(host, dirs, vsix) {
  const packaged = packageExtension(vsix);
  if (packaged.status !== 0) {
    throw new Error(`vsce package failed: ${packaged.stdout}${packaged.stderr}`);
  }
  installPackage(host, dirs, vsix);
  return `${packaged.stdout ?? ''}${packaged.stderr ?? ''}`;
}

/**
 * Packages a test fixture extension (a folder of plain JavaScript under test/fixtures/, such as
 * memfs-extension, the in-memory file system of the virtual workspace checks) and installs it into
 * the profile's extensions folder beside Lab Data, for `host`'s code-server.
 */
export function installFixtureExtension(host, dirs, folder) {
  const vsix = join(dirs.sandbox, `${basename(folder)}.vsix`);
  const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  const packaged = spawnSync(
    process.execPath,
    [
      vsce,
      'package',
      '--no-dependencies',
      '--allow-missing-repository',
      '--skip-license',
      '--out',
      vsix,
    ],
    { cwd: folder, encoding: 'utf8' },
  );
  if (packaged.status !== 0) {
    throw new Error(`vsce package of ${folder} failed: ${packaged.stdout}${packaged.stderr}`);
  }
  installPackage(host, dirs, vsix);
}

/** `code-server --install-extension vsix` into the profile's extensions folder. */
function installPackage(host, dirs, vsix) {
  const installed = spawnSync(
    host.nodeBinary,
    [
      host.codeServerEntry,
      '--user-data-dir',
      dirs.userData,
      '--extensions-dir',
      dirs.extensions,
      '--install-extension',
      vsix,
    ],
    { encoding: 'utf8' },
  );
  if (installed.status !== 0) {
    throw new Error(
      `code-server --install-extension failed: ${installed.stdout}${installed.stderr}`,
    );
  }
}

/** The workbench URL that loads `extensionPath` as a development extension, and optionally a test suite. */
export function workbenchUrl(server, { extensionPath, workspace, testsPath }) {
  const authority = `127.0.0.1:${server.port}`;
  const payload = [
    ['extensionDevelopmentPath', `vscode-remote://${authority}${extensionPath}`],
    ['skipWelcome', 'true'],
    ['skipReleaseNotes', 'true'],
  ];
  if (testsPath) {
    payload.push(['extensionTestsPath', `vscode-remote://${authority}${testsPath}`]);
  }
  return `${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/**
 * Debian's Chromium, headless, with a persistent profile (SecretStorage lives in the browser), driven
 * by playwright-core. Never downloads a browser. Background networking is off: this machine has none.
 */
export async function launchChromium(profileDir, viewport = { width: 1400, height: 900 }) {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(profileDir, {
    executablePath: process.env.LABDATA_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}
