// The machine's NODE_EXTRA_CA_CERTS, read before test/setup.ts takes it out of every process the tests start: npm
// (package.test.ts), which may reach the registry through a proxy only those CAs vouch for, gets it back.
export const MACHINE_EXTRA_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS;
