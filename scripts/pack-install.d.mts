// Types of scripts/pack-install.mjs, for test/e2e/package.test.ts.
export interface Packed {
  /** The tarball's name, in the directory it was packed into. */
  filename: string;
  /** What `npm pack --json` says the tarball holds. */
  files: { path: string }[];
  /** The global install's prefix: <prefix>/bin/giftcodes. */
  prefix: string;
}
export function packAndInstall(root: string, dir: string, env: NodeJS.ProcessEnv): Promise<Packed>;
export function packForRuns(root: string, dir: string, env: NodeJS.ProcessEnv): Promise<void>;
export function packedForRuns(dir: string, timeoutMs: number): Promise<Packed>;
