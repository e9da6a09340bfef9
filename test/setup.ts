// Runs in every test file: after the file, no CLI run may have printed a whole API key.
import { installLeakCheck } from './helpers/leaks.js';

installLeakCheck();
