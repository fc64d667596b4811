#!/usr/bin/env node
// Installs whatever a fresh clone needs, idempotently and quickly when it is already there:
//   npm packages (npm ci when package-lock.json changed), and with --test-host the Debian packages
//   and the code-server test host that the integration tests and the demo run in.
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
export const CODE_SERVER_VERSION = '4.100.3';
export const codeServerDir = join(
  root,
  '.cache',
  'test-host',
  `code-server-${CODE_SERVER_VERSION}`,
);
export const codeServerEntry = join(codeServerDir, 'package', 'out', 'node', 'entry.js');
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

/**
 * Installs code-server into an ignored cache folder, following the recipe in
 * shared/docs/vscode-test-host.md: no install scripts that download, ripgrep from Debian,
 * native modules rebuilt locally.
 */
export function ensureCodeServer() {
  const done = join(codeServerDir, '.provisioned');
  if (existsSync(done) && existsSync(codeServerEntry)) {
    return;
  }
  ensureDebianPackages();
  const started = Date.now();
  say(
    `provisioning code-server ${CODE_SERVER_VERSION} into ${codeServerDir} (a few minutes, once)…`,
  );
  rmSync(codeServerDir, { recursive: true, force: true });
  mkdirSync(codeServerDir, { recursive: true });
  const tarball = execFileSync('npm', ['pack', `code-server@${CODE_SERVER_VERSION}`, '--silent'], {
    cwd: codeServerDir,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop();
  run('tar', ['-xzf', tarball], { cwd: codeServerDir });
  rmSync(join(codeServerDir, tarball));
  const pkg = join(codeServerDir, 'package');
  const vscodeDir = join(pkg, 'lib', 'vscode');
  const npmEnv = {
    ...process.env,
    npm_config_yes: 'true',
    npm_config_unsafe_perm: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    ...nodeHeaders(),
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
  const version = execFileSync(process.execPath, [codeServerEntry, '--version'], {
    encoding: 'utf8',
  });
  if (!version.includes(CODE_SERVER_VERSION)) {
    throw new Error(`code-server reports an unexpected version: ${version}`);
  }
  writeFileSync(done, `${version.trim()}\n`);
  say(
    `code-server ready in ${((Date.now() - started) / 1000).toFixed(0)} s: ${version.trim().split('\n')[0]}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  try {
    ensureNodeModules();
    if (process.argv.includes('--test-host')) {
      ensureDebianPackages();
      ensureCodeServer();
    }
    say(`ready (${Date.now() - started} ms)`);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
