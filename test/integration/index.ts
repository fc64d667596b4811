import * as https from 'node:https';
import { runMochaSuite } from './mochaRunner';
import { vscodeTrustedCertificates } from './helpers';

/** Entry point for the extension host (`extensionTestsPath`). */
export function run(): Promise<void> {
  // VS Code's own fetch adds `https.globalAgent.testCertificates` to what it trusts while extension
  // tests run (its stand-in for the OS trust store in tests); it reads them once, at its first
  // request, so the test CA is handed over before any test sends one.
  (https.globalAgent as https.Agent & { testCertificates?: string[] }).testCertificates = [
    vscodeTrustedCertificates().caPem,
  ];
  return runMochaSuite(__dirname);
}
