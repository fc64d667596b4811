import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

/**
 * The layers of the core (core/) and the extension (src/), lowest first; ARCHITECTURE.md draws the same table. A file may import from
 * its own layer's folders and from layers below it, never from a layer above. Within a layer,
 * folders do not import each other (one arrow each way would make them one layer).
 */
const LAYERS = [
  // The lab API as plain TypeScript (no vscode), its folders in their own order, lowest first.
  ['core/errors'],
  ['core/async'],
  ['core/connection'],
  ['core/files'],
  ['core/api'],
  ['core/sync'],
  ['core/derived'],
  ['core/uses'],
  // The VS Code layer.
  ['src/ui', 'src/log.ts', 'src/constants.ts', 'src/cancellation.ts'],
  ['src/labs'],
  ['src/news'],
  ['src/views', 'src/preview', 'src/documents', 'src/downloads', 'src/auth'],
  [
    'src/ids',
    'src/chat',
    'src/overview',
    'src/provenance',
    'src/impact',
    'src/notebooks',
    'src/statusBar.ts',
  ],
  ['src/commands', 'src/api.ts', 'src/tasks'],
  ['src/extension.ts'],
];

/** One zone per layer: nothing in it imports from any layer above it; nor one of its folders from another of its folders. */
const layerZones = LAYERS.flatMap((layer, index) => {
  const above = LAYERS.slice(index + 1).flat();
  const upward =
    above.length === 0
      ? []
      : [
          {
            target: layer.map((place) => `./${place}`),
            from: above.map((place) => `./${place}`),
            message:
              'Imports run downward only: this layer may not import from a layer above it (see ARCHITECTURE.md).',
          },
        ];
  const sideways =
    layer.length < 2
      ? []
      : layer.map((place) => ({
          target: `./${place}`,
          from: layer.filter((other) => other !== place).map((other) => `./${other}`),
          message: 'Folders of one layer do not import each other (see ARCHITECTURE.md).',
        }));
  return [...upward, ...sideways];
});

/**
 * The three users of the core: the extension (src/), the command-line tool (cli/) and, for types
 * only, the webviews (webviews/). None of them imports another, and the core imports none of them.
 */
const runtimeZones = [
  {
    target: './cli',
    from: ['./src', './webviews'],
    message:
      'The command-line tool uses only the core (core/), never the VS Code layer or the webviews.',
  },
  {
    target: ['./src', './webviews', './core'],
    from: './cli',
    message: 'Nothing imports the command-line tool.',
  },
  {
    target: ['./core', './src', './cli'],
    from: './webviews',
    message: 'The webviews are browser code, bundled on their own: nothing else imports them.',
  },
  {
    target: './webviews',
    from: ['./src', './cli'],
    message:
      'The webviews run in the browser: they import nothing of the extension or the tool (types of the core only).',
  },
];

/** Imports run downward only, layer by layer (type-only imports too); test/unit/architecture.test.ts lints a scratch file with it. */
export const layersConfig = {
  files: ['core/**/*.ts', 'src/**/*.ts', 'cli/src/**/*.ts', 'webviews/**/*.ts'],
  plugins: { 'import-x': importX },
  settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })] },
  rules: {
    'import-x/no-restricted-paths': [
      'error',
      { basePath: import.meta.dirname, zones: [...layerZones, ...runtimeZones] },
    ],
  },
};

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'dist/**',
      'cli/dist/**',
      'cli/build.mjs',
      'node_modules/**',
      '.cache/**',
      '.vscode-test/**',
      'scripts/**',
      'esbuild.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.test.json', './tsconfig.webview.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'smart'],
      curly: 'error',
      // Sanitisers and validators must match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // Test fixtures installed into the VS Code test hosts as they are: plain CommonJS under Node.
    files: ['test/fixtures/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', Buffer: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  layersConfig,
  {
    // The lab API core runs under plain Node; it must never depend on the editor.
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'core/ must not import vscode.' }],
          patterns: [{ group: ['../../*'], message: 'core/ may only import from core/.' }],
        },
      ],
    },
  },
  {
    // A folder inside a core folder (core/connection/check/) reaches the rest of the core two levels up.
    files: ['core/*/*/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'core/ must not import vscode.' }],
          patterns: [{ group: ['../../../*'], message: 'core/ may only import from core/.' }],
        },
      ],
    },
  },
  {
    // The webviews run in the browser: they may name the core's types, never load its code (it runs in Node).
    files: ['webviews/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'vscode',
              message: 'A webview cannot import vscode; it talks to the extension by messages.',
            },
          ],
          patterns: [
            {
              group: ['../core/*', '../core/**'],
              allowTypeImports: true,
              message:
                "A webview may import the core's types only (import type …): its code runs in Node.",
            },
            { group: ['node:*'], message: 'A webview runs in the browser: no Node modules.' },
          ],
        },
      ],
    },
  },
  {
    // The command-line tool runs under Node alone.
    files: ['cli/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'vscode',
              message: 'The command-line tool runs under Node alone; it never imports vscode.',
            },
          ],
        },
      ],
    },
  },
);
