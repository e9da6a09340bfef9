// The wire under ApiClient: one request over node:http or node:https, with keep-alive. Node's own HTTP
// parser is native; undici's is WebAssembly, and compiling it cost every `giftcodes` process about 90 ms
// (BENCHMARKS.md). Deadlines, retries and error mapping stay in client.ts.
import type { Agent, IncomingHttpHeaders, IncomingMessage } from 'node:http';

export interface WireRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Aborts the attempt at any stage: connecting, waiting for the head, or reading the body. */
  signal: AbortSignal;
}

export interface WireResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body as it arrives; destroy() stops reading it. */
  body: IncomingMessage;
}

/** What node:http and node:https have in common, as used here. */
interface Module {
  Agent: new (options: { keepAlive: boolean }) => Agent;
  request: typeof import('node:http').request;
}

export class Transport {
  private readonly agents = new Map<string, Agent>();

  /** Resolves once the status and headers have arrived; the body is read by the caller. */
  async request(url: URL, req: WireRequest): Promise<WireResponse> {
    // https (and with it TLS) loads only for an https base URL; the local reference server is plain http.
    const secure = url.protocol === 'https:';
    const module: Module = secure ? await import('node:https') : await import('node:http');
    let agent = this.agents.get(url.protocol);
    if (!agent) {
      agent = new module.Agent({ keepAlive: true });
      this.agents.set(url.protocol, agent);
    }
    const headers = req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) };
    return new Promise<WireResponse>((resolve, reject) => {
      const outgoing = module.request(url, { method: req.method, headers, agent, signal: req.signal }, (res) => {
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
      });
      // Stays attached after the answer: a later socket error then ends the body instead of the process.
      outgoing.on('error', reject);
      outgoing.end(req.body);
    });
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
