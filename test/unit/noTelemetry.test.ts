import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const root = path.resolve(__dirname, '..', '..', '..');

/**
 * What sending telemetry takes: VS Code's telemetry API (a logger, a sender, the setting's state)
 * or a telemetry library (VS Code's, Application Insights, 1DS, Sentry, Segment, PostHog).
 */
const TELEMETRY =
  /createTelemetryLogger|TelemetryLogger|TelemetrySender|isTelemetryEnabled|onDidChangeTelemetryEnabled|extension-telemetry|applicationinsights|1ds-core-js|@sentry\/|analytics-node|posthog/i;

/** Everything the extension, its webviews and the command-line tool would run, bundled as shipped. */
async function bundles(): Promise<Array<{ name: string; text: string }>> {
  const common = { bundle: true, write: false, logLevel: 'silent', absWorkingDir: root } as const;
  const built = await Promise.all([
    esbuild.build({
      ...common,
      entryPoints: ['src/extension.ts'],
      platform: 'node',
      format: 'cjs',
      external: ['vscode'],
      outfile: 'extension.js',
    }),
    esbuild.build({
      ...common,
      entryPoints: ['webviews/pdfViewer.ts', 'webviews/overview.ts'],
      platform: 'browser',
      format: 'esm',
      outdir: 'webview',
    }),
    esbuild.build({
      ...common,
      entryPoints: ['cli/src/main.ts'],
      platform: 'node',
      format: 'cjs',
      outfile: 'lab-data.js',
    }),
  ]);
  return built.flatMap((result) =>
    result.outputFiles.map((file) => ({ name: path.basename(file.path), text: file.text })),
  );
}

describe('telemetry: none (the README says so)', function () {
  this.timeout(120_000);

  it('nothing the extension, its webviews or lab-data runs uses a telemetry API or library', async () => {
    const built = await bundles();
    assert.deepEqual(built.map((bundle) => bundle.name).sort(), [
      'extension.js',
      'lab-data.js',
      'overview.js',
      'pdfViewer.js',
    ]);
    for (const bundle of built) {
      assert.ok(bundle.text.length > 10_000, `${bundle.name} holds the code`);
      const found = TELEMETRY.exec(bundle.text);
      assert.equal(
        found && bundle.text.slice(Math.max(0, found.index - 80), found.index + 80),
        null,
        `${bundle.name} uses telemetry`,
      );
    }
  });

  it('no dependency of either package is a telemetry library', () => {
    for (const file of ['package.json', 'cli/package.json']) {
      const manifest = JSON.parse(readFileSync(path.join(root, file), 'utf8')) as Record<
        string,
        Record<string, string> | undefined
      >;
      const names = ['dependencies', 'optionalDependencies', 'peerDependencies'].flatMap((key) =>
        Object.keys(manifest[key] ?? {}),
      );
      assert.deepEqual(
        names.filter((name) => TELEMETRY.test(name)),
        [],
        file,
      );
    }
  });

  it('the pattern finds what it looks for', () => {
    for (const use of [
      'vscode.env.createTelemetryLogger(sender)',
      'if (vscode.env.isTelemetryEnabled) {',
      "require('@vscode/extension-telemetry')",
      "import * as appInsights from 'applicationinsights'",
    ]) {
      assert.match(use, TELEMETRY);
    }
  });
});
