import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(__dirname, '..', '..', '..');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(folder, name));
}

describe('architecture', () => {
  it('core/ never imports vscode, nor anything outside core/', () => {
    const core = path.join(root, 'core');
    const files = sourceFiles(core);
    assert.ok(files.length >= 30, 'found the core sources');
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const imports = [
        ...text.matchAll(
          /(?:import|export)\s[^;]*?from\s+'([^']+)'|require\('([^']+)'\)|import\('([^']+)'\)/g,
        ),
      ].map((m) => m[1] ?? m[2] ?? m[3]!);
      for (const specifier of imports) {
        assert.notEqual(specifier, 'vscode', `${path.relative(root, file)} imports vscode`);
        if (specifier.startsWith('.')) {
          const target = path.resolve(path.dirname(file), specifier);
          assert.ok(
            !path.relative(core, target).startsWith('..'),
            `${path.relative(root, file)} imports ${specifier} from outside core/`,
          );
        }
        assert.ok(
          specifier.startsWith('.') ||
            specifier.startsWith('node:') ||
            specifier === 'undici' ||
            /^undici\/lib\/(dispatcher|api|core)\/[a-z-]+\.js$/.test(specifier),
          `${path.relative(root, file)} imports ${specifier}; the core may use only Node and undici`,
        );
      }
    }
  });

  it('one file of the core talks to undici: the transport behind the seam (every request leaves through connection/transport.ts)', () => {
    const files = sourceFiles(path.join(root, 'core'));
    const undiciUsers = files
      .filter((file) =>
        /(?:from|require\()\s*'undici(?:\/[^']*)?'/.test(readFileSync(file, 'utf8')),
      )
      .map((file) => path.relative(root, file).split(path.sep).join('/'));
    assert.deepEqual(undiciUsers, ['core/connection/undiciTransport.ts']);
    // The HTTP client hands its transport to the one function that sends (following redirects).
    const client = readFileSync(path.join(root, 'core', 'connection', 'httpClient.ts'), 'utf8');
    assert.match(
      client,
      /sendFollowingRedirects\(this\.transport,/,
      'the HTTP client sends through its transport',
    );
    const redirects = readFileSync(path.join(root, 'core', 'connection', 'redirects.ts'), 'utf8');
    assert.match(redirects, /transport\.send\(/, 'each hop is sent by the transport');
  });

  describe('imports run downward only (ESLint, import-x/no-restricted-paths, the layers of eslint.config.mjs)', () => {
    /** The rule ids ESLint reports for `text` as if it were the file `file` of src/. */
    async function lintAs(file: string, text: string): Promise<string[]> {
      const { ESLint } = await import('eslint');
      const tseslint = await import('typescript-eslint');
      const { layersConfig } = (await import(
        pathToFileURL(path.join(root, 'eslint.config.mjs')).href
      )) as { layersConfig: object };
      const eslint = new ESLint({
        cwd: root,
        overrideConfigFile: true,
        overrideConfig: [
          { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
          layersConfig,
        ],
      });
      const [result] = await eslint.lintText(text, { filePath: path.join(root, file) });
      return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
    }

    it('refuses an import from a layer above: a view reaching into commands, the API reaching into sync, labs into views', async function () {
      this.timeout(20_000);
      assert.deepEqual(
        await lintAs(
          'src/views/probe.ts',
          "import type { CommandServices } from '../commands/index';\nexport type Probe = CommandServices;\n",
        ),
        ['import-x/no-restricted-paths'],
      );
      assert.deepEqual(
        await lintAs(
          'core/api/probe.ts',
          "import { MANIFEST_FILE_NAME } from '../sync/manifest';\nexport const probe = MANIFEST_FILE_NAME;\n",
        ),
        ['import-x/no-restricted-paths'],
      );
      assert.deepEqual(
        await lintAs(
          'src/labs/probe.ts',
          "import type { ReportsTreeProvider } from '../views/reportsTree';\nexport type Probe = ReportsTreeProvider;\n",
        ),
        ['import-x/no-restricted-paths'],
      );
      assert.deepEqual(
        await lintAs(
          'src/chat/probe.ts',
          "import type { OverviewPanels } from '../overview/overviewPanels';\nexport type Probe = OverviewPanels;\n",
        ),
        ['import-x/no-restricted-paths'],
        'nor sideways within a layer',
      );
      assert.deepEqual(
        await lintAs(
          'cli/src/probe.ts',
          "import type { Labs } from '../../src/labs/labs';\nexport type Probe = Labs;\n",
        ),
        ['import-x/no-restricted-paths'],
        'the command-line tool uses only the core',
      );
      assert.deepEqual(
        await lintAs(
          'core/sync/probe.ts',
          "import type { Labs } from '../../src/labs/labs';\nexport type Probe = Labs;\n",
        ),
        ['import-x/no-restricted-paths'],
        'the core imports nothing of the extension',
      );
      assert.deepEqual(
        await lintAs(
          'webviews/probe.ts',
          "import type { Labs } from '../src/labs/labs';\nexport type Probe = Labs;\n",
        ),
        ['import-x/no-restricted-paths'],
        'a webview imports nothing of the extension',
      );
      assert.deepEqual(
        await lintAs(
          'src/views/probe.ts',
          "import type { Probe as P } from '../../webviews/overview';\nexport type Probe = P;\n",
        ),
        ['import-x/no-restricted-paths'],
        'nothing in the extension imports webview code',
      );
    });

    it('allows imports from below', async function () {
      this.timeout(20_000);
      assert.deepEqual(
        await lintAs(
          'src/views/probe.ts',
          "import type { Labs } from '../labs/labs';\nimport type { LabApi } from '../core/api/labApi';\nexport type Probe = [Labs, LabApi];\n",
        ),
        [],
      );
      assert.deepEqual(
        await lintAs(
          'cli/src/probe.ts',
          "import type { LabApi } from '../../core/api/labApi';\nexport type Probe = LabApi;\n",
        ),
        [],
      );
      assert.deepEqual(
        await lintAs(
          'webviews/probe.ts',
          "import type { ReportOverview } from '../core/derived/overview';\nexport type Probe = ReportOverview;\n",
        ),
        [],
        "a webview may name the core's types",
      );
      assert.deepEqual(
        await lintAs(
          'core/sync/probe.ts',
          "import type { LabApi } from '../api/labApi';\nimport { LabApiError } from '../errors/errors';\nexport type Probe = [LabApi, LabApiError];\n",
        ),
        [],
      );
    });
  });

  it('only webviews load pdf.js and Chart.js: no extension-host source imports them', () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? walk(path.join(dir, entry.name))
          : entry.name.endsWith('.ts')
            ? [path.join(dir, entry.name)]
            : [],
      );
    const sources = ['core', 'src', 'cli', 'webviews'].flatMap((folder) =>
      walk(path.join(root, folder)),
    );
    const importers = sources.filter((file) =>
      /from 'pdfjs-dist|import\('pdfjs-dist/.test(readFileSync(file, 'utf8')),
    );
    assert.deepEqual(
      importers.map((file) => path.relative(root, file)),
      ['webviews/pdfViewer.ts'],
    );
    const chartUsers = sources.filter((file) => /from 'chart\.js/.test(readFileSync(file, 'utf8')));
    assert.ok(
      chartUsers.length > 0 &&
        chartUsers.every((file) => path.relative(root, file).startsWith(`webviews${path.sep}`)),
      `only webview code names Chart.js: ${chartUsers.join(', ')}`,
    );
    assert.match(
      readFileSync(path.join(root, 'webviews/pdfViewer.ts'), 'utf8'),
      /^import type .* from 'pdfjs-dist';$/m,
      'the viewer imports only its types; the module comes from the extension at run time',
    );
  });

  it('has three runtime dependencies, undici, pdf.js (pinned to a build Chromium 132 runs) and Chart.js (both loaded only by webviews), and pins the VS Code API to 1.100', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      engines: Record<string, string>;
      main: string;
    };
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['chart.js', 'pdfjs-dist', 'undici']);
    assert.equal(pkg.dependencies['chart.js'], '4.5.1');
    // 5.4.624 and later call Uint8Array#toHex() unguarded, which desktop VS Code 1.100's Chromium 132 lacks.
    assert.equal(pkg.dependencies['pdfjs-dist'], '5.4.530');
    assert.equal(pkg.engines.vscode, '^1.100.0');
    assert.equal(pkg.devDependencies['@types/vscode'], '~1.100.0');
    assert.equal(pkg.main, './dist/extension.js');
  });

  it('every core file has a test: each is imported by some file under test/', () => {
    const core = sourceFiles(path.join(root, 'core')).map((file) => file.replace(/\.ts$/, ''));
    const imported = new Set<string>();
    for (const file of sourceFiles(path.join(root, 'test'))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?:from|import\(?|require\()\s*'(\.[^']+)'/g)) {
        imported.add(path.resolve(path.dirname(file), match[1]!).replace(/\.js$/, ''));
      }
    }
    const untested = core
      .filter((file) => !imported.has(file))
      .map((file) => `${path.relative(root, file).split(path.sep).join('/')}.ts`);
    assert.ok(core.length >= 30, 'found the core sources');
    assert.deepEqual(untested, [], 'core files no test imports');
  });
});
