// What the journal finishes as a command ends (cli.ts, just before the exit): each log this process still holds
// unended intents in becomes their intent files (log.ts). No imports: a command that never touched the journal
// pays nothing for it.
const finishers: (() => Promise<void>)[] = [];

export function onJournalExit(finish: () => Promise<void>): void {
  finishers.push(finish);
}

/** Never fails: what cannot be finished now is finished by the next run that takes the journal's lock. */
export async function finishJournal(): Promise<void> {
  for (const finish of finishers) await finish().catch(() => undefined);
}
