import * as https from 'node:https';
import { vscodeTrustedCertificates } from '../helpers';
import { runMochaSuite } from '../mochaRunner';

/**
 * Entry point of the phase that opens a virtual workspace (`memfs:/demo`, no folder on disk): the
 * runner (scripts/run-integration.mjs) loads it after the reload phases.
 */
export function run(): Promise<void> {
  (https.globalAgent as https.Agent & { testCertificates?: string[] }).testCertificates = [
    vscodeTrustedCertificates().caPem,
  ];
  return runMochaSuite(__dirname);
}
