import { DIRECT } from '../../../../core/connection/network';
import { UndiciTransport } from '../../../../core/connection/undiciTransport';
import { transportContract } from './transportContract';

// The core's own transport (the command-line tool's, and the extension's where VS Code's cannot serve).
transportContract('undici', (settings) => new UndiciTransport({ ...settings, network: DIRECT }));
