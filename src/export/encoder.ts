// Text to UTF-8 bytes in one buffer reused for every page: a fresh Buffer per page of an export was
// hundreds of megabytes of short-lived external memory for a million codes, which the garbage collector
// let pile up (peak RSS grew with the number of codes).

export class Utf8Encoder {
  private buffer = Buffer.allocUnsafe(64 * 1024);

  /** The bytes of `text`, valid until the next call (TextSink.write resolves once it is done with them). */
  encode(text: string): Buffer {
    // A UTF-16 unit is at most 3 UTF-8 bytes: with that much room, one write encodes it all.
    const room = text.length * 3;
    if (room > this.buffer.length) this.buffer = Buffer.allocUnsafe(Math.max(room, this.buffer.length * 2));
    const size = this.buffer.write(text, 0, 'utf8');
    return this.buffer.subarray(0, size);
  }
}
