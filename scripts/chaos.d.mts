// Types of scripts/chaos.mjs for the test that runs it inside npm test.
export interface ChaosResult {
  rounds: number;
  /** Orders asked for: one per round, three per plan round, six per plan run twice. */
  orders: number;
  charges: number;
  lost: number;
  double: number;
  /** Intent files left in journal/ at the end of the rounds. */
  left: number;
  /** Charged orders without a delivered record in history/. */
  unrecorded: number;
  /** Rounds with an order the server never charged. */
  noCharge: number;
  /** Rounds in which sixty commands a user could run never got every order to the user. */
  stuck: number;
  kills: number;
  /** Rounds whose last command was interrupted, finished by order resume --all. */
  finished: number;
  /** Other entries left in journal/ (temporary files, lock dirs). */
  litter: number;
  /** A codes file's temporary files left in the rounds' folders (the codes of a killed write). */
  hidden: number;
  seed: number;
  byMode: Record<string, number>;
}
export const MODES: string[];
export function failed(
  round: Pick<ChaosResult, 'lost' | 'double' | 'left' | 'unrecorded' | 'noCharge' | 'stuck'>,
): boolean;
export function runChaos(options?: {
  rounds?: number;
  concurrency?: number;
  seed?: number;
  log?: (line: string) => void;
}): Promise<ChaosResult>;
