// The three undici modules the transport imports by path (its index would bundle fetch, WebSocket and mocks).
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import { EnvHttpProxyAgent } from 'undici';
  export default EnvHttpProxyAgent;
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export default Dispatcher;
}

/** request, stream, pipeline, upgrade, connect: undici's index puts them on Dispatcher.prototype. */
declare module 'undici/lib/api/index.js' {
  const api: Record<string, unknown>;
  export default api;
}
