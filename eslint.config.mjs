import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.cache/**', '.vscode-test/**', 'scripts/**', 'esbuild.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { project: ['./tsconfig.test.json', './tsconfig.webview.json'], tsconfigRootDir: import.meta.dirname },
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
    // The lab API core runs under plain Node; it must never depend on the editor.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/core must not import vscode.' }], patterns: [{ group: ['../*', '!../core/*'], message: 'src/core may only import from src/core.' }] }],
    },
  },
);
