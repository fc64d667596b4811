#!/usr/bin/env node
// The Python reader's tests (python/, package labdata): a virtual environment of Debian's own
// /usr/bin/python3 (another python3 may come first on PATH) with its system packages (pandas,
// pytest, jsonschema), `pip install ./python` into it with no network, the readers' fixtures written
// by the packed lab-data tool and the core (out/test/readers/makeFixtures.js, which keeps the nginx
// team cache up until its standard input closes), then pytest on python/tests. Needs the compiled
// out/ (tsc -p tsconfig.test.json). Writes {"passed","failed","skipped","failures"} to
// LABDATA_RESULTS_FILE when set; exits non-zero on any failure.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PYTHON = '/usr/bin/python3';
const scratch = mkdtempSync(join(tmpdir(), 'lab-data-python-'));
const results = { passed: 0, failed: 0, skipped: 0, failures: [] };

function say(message) {
  process.stderr.write(`[test-python] ${message}\n`);
}

function finish(code) {
  if (process.env.LABDATA_RESULTS_FILE) {
    writeFileSync(process.env.LABDATA_RESULTS_FILE, JSON.stringify(results));
  }
  rmSync(scratch, { recursive: true, force: true });
  process.exit(code);
}

function failSetUp(title, detail) {
  say(`${title}: ${detail}`);
  results.failed += 1;
  results.failures.push(`python: ${title}`);
  finish(1);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    failSetUp(`${command} ${args.join(' ')}`, `${result.stdout ?? ''}${result.stderr ?? ''}`);
  }
  return result;
}

if (!existsSync(PYTHON)) {
  failSetUp('Debian python3', `${PYTHON} is missing: npm run bootstrap installs it`);
}
if (!existsSync(join(root, 'out', 'test', 'readers', 'makeFixtures.js'))) {
  failSetUp(
    'the compiled tests',
    'out/ is missing: node node_modules/typescript/bin/tsc -p tsconfig.test.json',
  );
}

// A fresh environment each run: `pip install ./python` is part of what is tested.
const venv = join(scratch, 'venv');
run(PYTHON, ['-m', 'venv', '--system-site-packages', venv]);
const python = join(venv, 'bin', 'python');
// A copy of python/ is installed: pip's in-tree build leaves build/ and *.egg-info behind.
const source = join(scratch, 'python');
cpSync(join(root, 'python'), source, {
  recursive: true,
  filter: (file) => !/(^|[/\\])(build|__pycache__|[^/\\]*\.egg-info)$/.test(file),
});
run(
  python,
  [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--no-index',
    '--no-build-isolation',
    '--disable-pip-version-check',
    source,
  ],
  { cwd: scratch },
);

// The fixtures: written, then kept (with the team cache) until this script closes their input.
const fixturesDir = join(scratch, 'fixtures');
say('writing the fixtures with the packed lab-data tool and the core…');
const generator = spawn(
  process.execPath,
  [join(root, 'out', 'test', 'readers', 'makeFixtures.js'), fixturesDir],
  {
    stdio: ['pipe', 'pipe', 'inherit'],
  },
);
const ready = await new Promise((resolveReady) => {
  let text = '';
  generator.stdout.setEncoding('utf8').on('data', (chunk) => {
    text += chunk;
    const match = /^ready (.+)$/m.exec(text);
    if (match) {
      resolveReady(match[1]);
    }
  });
  generator.once('exit', () => resolveReady(undefined));
});
if (!ready) {
  failSetUp('the readers’ fixtures', 'makeFixtures.js stopped before it was ready');
}

const junit = join(scratch, 'pytest.xml');
say('pytest python/tests');
const pytest = await new Promise((resolveRun) => {
  const child = spawn(
    python,
    [
      '-m',
      'pytest',
      '-p',
      'no:cacheprovider',
      '-q',
      `--junitxml=${junit}`,
      join(root, 'python', 'tests'),
    ],
    {
      // Not the checkout: the tests import the installed package.
      cwd: scratch,
      stdio: 'inherit',
      env: { ...process.env, LABDATA_FIXTURES: ready, PYTHONDONTWRITEBYTECODE: '1' },
    },
  );
  child.once('exit', (code) => resolveRun(code ?? 1));
});
generator.stdin.end();
await new Promise((resolveExit) =>
  generator.exitCode !== null ? resolveExit() : generator.once('exit', resolveExit),
);

if (existsSync(junit)) {
  const xml = readFileSync(junit, 'utf8');
  for (const match of xml.matchAll(/<testcase ([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attributes = match[1];
    const body = match[3] ?? '';
    const name = /name="([^"]*)"/.exec(attributes)?.[1] ?? '?';
    const classname = /classname="([^"]*)"/.exec(attributes)?.[1] ?? '';
    if (/<(failure|error)\b/.test(body)) {
      results.failed += 1;
      results.failures.push(`python: ${classname}::${name}`);
    } else if (/<skipped\b/.test(body)) {
      results.skipped += 1;
    } else {
      results.passed += 1;
    }
  }
}
if (pytest !== 0 && results.failed === 0) {
  results.failed += 1;
  results.failures.push(`python: pytest exited ${pytest}`);
}
say(`${results.passed} passed, ${results.failed} failed, ${results.skipped} skipped`);
finish(results.failed > 0 ? 1 : 0);
