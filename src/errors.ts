// Typed errors that carry their exit code; only src/cli.ts turns them into text and an exit.

export const ExitCode = {
  ok: 0,
  internal: 1,
  usage: 2,
  auth: 3,
  api: 4,
  network: 5,
  orderFailed: 6,
  timeout: 7,
  local: 8,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface CliErrorInit {
  code?: string;
  hint?: string;
  status?: number;
  cause?: unknown;
  /** Certainly nothing of the request reached the network on any attempt (DNS failure, refused connection, TLS handshake failure). */
  notSent?: boolean;
  /** An attempt before the one that failed may have reached the server (set by the API client on its retries). */
  earlierMaybeSent?: boolean;
  /** The order the error concerns, where one exists (a wait that timed out): `--json` names it (`orderId`). */
  orderId?: string | undefined;
  /**
   * The message as said by the run that placed the order, which then need not add "; it was placed" to it (the
   * order machine's keptForResume): a wait's timeout reads `…after 1s; the order was placed and is still pending`.
   */
  placedMessage?: string | undefined;
  /**
   * The hint keeps a line of its own under --quiet too, where cli.ts otherwise joins it to the error's line: doctor's
   * failure, whose last two lines the cron recipe's `tail -n 2` mails (README.md, Nightly restock with cron).
   */
  hintLine?: boolean;
}

export class CliError extends Error {
  readonly exitCode: ExitCodeValue;
  readonly code: string;
  /** Set again by the request loop when the service's own wait ended its retries (client.ts send). */
  hint: string | undefined;
  readonly status: number | undefined;
  /** Certainly nothing of the request reached the network on any attempt: set by the API client. */
  notSent: boolean;
  /** An earlier attempt of this request may have been sent: its answer then speaks of that attempt too. Set by the API client. */
  earlierMaybeSent: boolean;
  /** The order the error concerns, where one exists: a script reads it from the `--json` error, not from the prose. */
  readonly orderId: string | undefined;
  /** CliErrorInit.placedMessage. */
  readonly placedMessage: string | undefined;
  /** CliErrorInit.hintLine. */
  readonly hintLine: boolean;

  constructor(exitCode: ExitCodeValue, message: string, init: CliErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.code = init.code ?? 'error';
    this.hint = init.hint;
    this.status = init.status;
    this.notSent = init.notSent ?? false;
    this.earlierMaybeSent = init.earlierMaybeSent ?? false;
    this.orderId = init.orderId;
    this.placedMessage = init.placedMessage;
    this.hintLine = init.hintLine ?? false;
  }
}

/** Bad flags or input, caught before anything was sent. */
export class UsageError extends CliError {
  constructor(message: string, init: CliErrorInit = {}) {
    super(ExitCode.usage, message, { code: 'usage', ...init });
  }
}

/** No key, a rejected key, an environment mismatch, an unsafe base URL, an unreadable config. */
export class AuthError extends CliError {
  constructor(message: string, init: CliErrorInit = {}) {
    super(ExitCode.auth, message, { code: 'auth', ...init });
  }
}

/** The API answered and refused (4xx other than auth). */
export class ApiError extends CliError {
  constructor(message: string, init: CliErrorInit = {}) {
    super(ExitCode.api, message, { code: 'api_error', ...init });
  }
}

/** The API could not be reached, kept failing, or answered with something unreadable. */
export class NetworkError extends CliError {
  constructor(message: string, init: CliErrorInit = {}) {
    super(ExitCode.network, message, { code: 'network_error', ...init });
  }
}

export class OrderFailedError extends CliError {
  constructor(message: string, init: CliErrorInit = {}) {
    super(ExitCode.orderFailed, message, { code: 'order_failed', ...init });
  }
}

export class WaitTimeoutError extends CliError {
  constructor(message: string, init: CliErrorInit = {}) {
    super(ExitCode.timeout, message, { code: 'timeout', ...init });
  }
}

/**
 * A local resource failed: the journal, config or an output (a codes file, stdout) cannot be written or
 * read (disk full, read-only, permission, a closed pipe, a config directory that is a file), or a config directory
 * or a file of secrets another user owns or others can write (help.ts, EXIT_CODES, says every cause).
 */
export class LocalError extends CliError {
  constructor(message: string, init: CliErrorInit = {}) {
    super(ExitCode.local, message, { code: 'local_error', ...init });
  }
}

export class InterruptedError extends CliError {
  constructor(message = 'interrupted', init: CliErrorInit = {}) {
    super(ExitCode.interrupted, message, { code: 'interrupted', ...init });
  }
}

/**
 * An order stopped at one of its questions, "no" or Ctrl-C alike, before anything was sent: exit 130 with these
 * words either way (a person who pressed Ctrl-C reads what "no" would have told them).
 */
export function nothingSent(): InterruptedError {
  return new InterruptedError('cancelled: nothing was sent');
}

export function isCliError(error: unknown): error is CliError {
  return error instanceof CliError;
}

/** The error as the CliError it is, else as a LocalError (exit 8) with its message and this code. */
export function asLocalError(error: unknown, code: string): CliError {
  return isCliError(error) ? error : new LocalError(error instanceof Error ? error.message : String(error), { code });
}
