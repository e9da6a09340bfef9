// readChunks (client.ts): an answer's body read by its events, not `for await`, as `for await` would read it: the
// same chunks, the same limit, the same error, and Node's "Premature close" for a body closed before its end.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readChunks } from '../../src/api/client.js';
import { NetworkError } from '../../src/errors.js';

const tooLarge = (): NetworkError => new NetworkError('too large', { code: 'response_too_large' });

/** What `for await` makes of the same stream: its chunks, or the error it throws. */
async function byIteration(stream: Readable): Promise<Buffer[] | { code: unknown; message: string }> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return chunks;
  } catch (error) {
    return { code: (error as NodeJS.ErrnoException).code, message: (error as Error).message };
  }
}

async function byEvents(stream: Readable, limit = 1 << 20): Promise<Buffer[] | { code: unknown; message: string }> {
  try {
    return (await readChunks(stream, limit, tooLarge)).chunks;
  } catch (error) {
    return { code: (error as NodeJS.ErrnoException).code, message: (error as Error).message };
  }
}

describe('readChunks', () => {
  it('reads every chunk in order, and their size', async () => {
    const parts = ['{"id":', '"ord_1",', '"status":"pending"}'].map((text) => Buffer.from(text));
    const { chunks, size } = await readChunks(Readable.from(parts), 1 << 20, tooLarge);
    expect(Buffer.concat(chunks).toString()).toBe('{"id":"ord_1","status":"pending"}');
    expect(size).toBe(33);
    expect(await byEvents(Readable.from(parts))).toEqual(await byIteration(Readable.from(parts)));
  });

  it('an empty body is no chunk', async () => {
    expect(await readChunks(Readable.from([]), 10, tooLarge)).toEqual({ chunks: [], size: 0 });
  });

  it('a body over the limit is refused as too large and destroyed, as soon as it is over', async () => {
    const stream = new PassThrough();
    const read = readChunks(stream, 8, tooLarge);
    stream.write(Buffer.from('12345'));
    stream.write(Buffer.from('6789'));
    await expect(read).rejects.toMatchObject({ code: 'response_too_large' });
    expect(stream.destroyed).toBe(true);
  });

  it('exactly the limit is read whole', async () => {
    const { size } = await readChunks(Readable.from([Buffer.from('1234'), Buffer.from('5678')]), 8, tooLarge);
    expect(size).toBe(8);
  });

  it("the stream's error is thrown, as for await throws it", async () => {
    const failing = (): PassThrough => {
      const stream = new PassThrough();
      stream.write(Buffer.from('{"id":'));
      setImmediate(() => stream.destroy(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })));
      return stream;
    };
    const events = await byEvents(failing());
    expect(events).toEqual({ code: 'UND_ERR_SOCKET', message: 'other side closed' });
    expect(events).toEqual(await byIteration(failing()));
  });

  it('a body closed before its end without an error is a premature close, as for await says', async () => {
    const closing = (): PassThrough => {
      const stream = new PassThrough();
      stream.write(Buffer.from('{"id":'));
      setImmediate(() => stream.destroy());
      return stream;
    };
    const events = await byEvents(closing());
    expect(events).toEqual({ code: 'ERR_STREAM_PREMATURE_CLOSE', message: 'Premature close' });
    expect(events).toEqual(await byIteration(closing()));
  });

  it('leaves none of its listeners on the stream but one that takes a late error', async () => {
    const stream = Readable.from([Buffer.from('{}')]);
    const before = ['data', 'end', 'close'].map((event) => stream.listenerCount(event));
    await readChunks(stream, 10, tooLarge);
    expect(['data', 'end', 'close'].map((event) => stream.listenerCount(event))).toEqual(before);
  });

  it('an error the stream emits after its read ended is not thrown (no stack trace ends the run)', async () => {
    const stream = new PassThrough();
    const read = readChunks(stream, 10, tooLarge);
    stream.end(Buffer.from('{}'));
    expect((await read).size).toBe(2);
    // Without a listener, an 'error' event throws where it is emitted.
    expect(() => stream.emit('error', new Error('late socket error'))).not.toThrow();
  });
});
