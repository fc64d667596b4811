import { runMochaSuite } from '../../mochaRunner';

/** Third entry point, loaded after a second window reload: checks that a sign-out survived it. */
export function run(): Promise<void> {
  return runMochaSuite(__dirname);
}
