// What an address that cannot be listened on means, in the words of the flag that fixes it: `serve` and the
// webhook receivers (`webhook listen`, `order watch --webhook-port`) say it the same way. The host is as much a
// cause as the port: an address of another machine (EADDRNOTAVAIL) or a name that does not resolve (ENOTFOUND)
// is fixed by --host, and no other port helps.

/** The flags that chose the address, as the hint names them. */
export interface ListenFlags {
  host?: string | undefined;
  port: string;
}

/** The error's words: what could not be listened on, and why. */
export function listenMessage(code: string, host: string, port: number): string {
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is already in use`;
    case 'EACCES':
      return `not allowed to listen on port ${port}`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${host}:${port} (EADDRNOTAVAIL: ${host} is not an address of this machine)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${host}:${port} (${code}: the host name ${host} does not resolve)`;
    default:
      return `cannot listen on ${host}:${port} (${code})`;
  }
}

/** The hint for that cause: the port for a port taken or not allowed, the host for a host this machine is not. */
export function listenHint(code: string, flags: ListenFlags): string {
  const host = flags.host ?? '--host';
  switch (code) {
    case 'EADDRINUSE':
    case 'EACCES':
      return `choose another ${flags.port} (0 picks a free one)`;
    case 'EADDRNOTAVAIL':
      return `choose a ${host} this machine has: 127.0.0.1 for this machine alone, 0.0.0.0 for every interface`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `check the host name in ${host}, or give an address (127.0.0.1 for this machine alone)`;
    default:
      return `check ${host} and ${flags.port} (${flags.port} 0 picks a free one)`;
  }
}
