// The undici modules the transport imports by path (its index would bundle fetch, WebSocket and mocks).
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import { EnvHttpProxyAgent } from 'undici';
  export default EnvHttpProxyAgent;
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export default Dispatcher;
}

/** request and connect: undici's index puts them (and stream, pipeline, upgrade) on Dispatcher.prototype. */
declare module 'undici/lib/api/api-request.js' {
  const request: (...args: unknown[]) => unknown;
  export default request;
}

declare module 'undici/lib/api/api-connect.js' {
  const connect: (...args: unknown[]) => unknown;
  export default connect;
}

declare module 'undici/lib/dispatcher/pool.js' {
  import { Pool } from 'undici';
  export default Pool;
}

declare module 'undici/lib/dispatcher/client.js' {
  import { Client } from 'undici';
  export default Client;
}

declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}

/** How undici's request() makes a response's headers object of the raw name/value list a handler is given. */
declare module 'undici/lib/core/util.js' {
  export function parseHeaders(headers: Buffer[]): Record<string, string | string[]>;
}
