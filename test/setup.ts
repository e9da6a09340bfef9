// Runs in every test file: after the file, no CLI run may have printed a whole API key.
import { installLeakCheck } from './helpers/leaks.js';
import './helpers/machine-env.js';

installLeakCheck();

// The machine's extra CAs are no part of a test (a test that needs a CA sets NODE_EXTRA_CA_CERTS itself), and Node 20
// reads the whole file as each process starts: with the system bundle there, ~0.08 s of CPU per CLI or server run.
delete process.env.NODE_EXTRA_CA_CERTS;
