#!/usr/bin/env node
// `npm run demo`: installs what is missing, builds the extension, starts the mock lab with its demo
// data on loopback and opens VS Code (code-server on 127.0.0.1) with the extension loaded and the
// lab address already set, in a throwaway profile that never touches your own settings or secrets.
// Ctrl+C stops everything it started.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = (command, args) => {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.exit(result.status ?? 1);
  }
};
run(process.execPath, [join(root, 'scripts', 'bootstrap.mjs'), '--test-host']);
run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.test.json']);
run(process.execPath, [join(root, 'esbuild.js')]);

const { makeSandbox, startCodeServer, workbenchUrl } = await import('./codeServer.mjs');
const { MockLabServer, DEMO_TOKENS } = await import(join(root, 'out', 'test', 'mock', 'server.js'));

const lab = new MockLabServer({ port: Number(process.env.LABDATA_DEMO_LAB_PORT ?? 0) });
const labUrl = await lab.start();
const dirs = makeSandbox('lab-data-demo-', { 'labData.baseUrl': labUrl });
const server = await startCodeServer({ ...dirs, env: {} });
const url = workbenchUrl(server, { extensionPath: root, workspace: dirs.workspace });

process.stdout.write(
  [
    '',
    `Mock lab:   ${labUrl}  (${lab.reportsFor('demo-full-access').length} published reports, ${lab.data.clients.length} clients, ${lab.data.samples.length} samples)`,
    `VS Code:    ${url}`,
    '',
    'Open the VS Code address in a browser, click the flask icon ("Lab Data") in the activity bar,',
    'choose Sign In, accept the address, and paste the demo token:',
    '',
    '    demo-full-access',
    '',
    'Other demo tokens (scopes):',
    ...Object.entries(DEMO_TOKENS).map(([token, scope]) => `    ${token.padEnd(20)} ${scope.label}`),
    '',
    'Press Ctrl+C to stop the lab and VS Code.',
    '',
  ].join('\n'),
);

let stopping = false;
async function stop() {
  if (stopping) {
    return;
  }
  stopping = true;
  await server.stop();
  await lab.stop();
  rmSync(dirs.sandbox, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
