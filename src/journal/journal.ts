export class Journal { constructor(readonly dir: string) {} }
