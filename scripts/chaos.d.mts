// Types of scripts/chaos.mjs for the test that runs it inside npm test.
export interface ChaosResult {
  rounds: number;
  charges: number;
  lost: number;
  double: number;
  left: number;
  kills: number;
  noCharge: number;
  seed: number;
  byMode: Record<string, number>;
}
export const MODES: string[];
export function runChaos(options?: { rounds?: number; concurrency?: number; seed?: number; log?: (line: string) => void }): Promise<ChaosResult>;
