import { runMochaSuite } from './mochaRunner';

/** Entry point for the extension host (`extensionTestsPath`). */
export function run(): Promise<void> {
  return runMochaSuite(__dirname);
}
