import { runMochaSuite } from '../mochaRunner';

/** Second entry point, loaded after the window reloaded: checks what must survive a reload. */
export function run(): Promise<void> {
  return runMochaSuite(__dirname);
}
