// codes decrypt to standard output (src/commands/codes/decrypt.ts): it writes the file's bytes as they went in, so
// --json and --query (one JSON document) are refused for a file that holds another format, not answered with CSV.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateX25519Identity, identityToRecipient } from 'age-encryption';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/commands/codes/decrypt.js';
import { encryptingSink } from '../../src/export/age.js';
import { compileQuery } from '../../src/output/exporter.js';
import { tempDir } from '../helpers/e2e.js';
import { capturedIo, terminalIo } from '../helpers/inprocess.js';

/** An age file named `name` holding `text`, and the identity file that opens it. */
async function sealed(name: string, text: string): Promise<{ file: string; identity: string }> {
  const dir = tempDir();
  const secret = await generateX25519Identity();
  const chunks: Buffer[] = [];
  const age = await encryptingSink({ write: async (chunk) => void chunks.push(Buffer.from(chunk)) }, [
    await identityToRecipient(secret),
  ]);
  await age.sink.write(text);
  await age.close();
  const file = join(dir, name);
  writeFileSync(file, Buffer.concat(chunks));
  const identity = join(dir, 'key.txt');
  writeFileSync(identity, `${secret}\n`);
  return { file, identity };
}

const CSV = 'order_id,code\r\nord_1,CODE-ONE\r\n';

describe('codes decrypt to standard output', () => {
  // A walkthrough: `codes decrypt sealed.csv.age --identity key.txt --json` printed the CSV's lines, exit 0, and
  // `--query '[0]'` printed them too, the query never read.
  it('refuses --json for a file that holds CSV, before anything is written', async () => {
    const { file, identity } = await sealed('sealed.csv.age', CSV);
    const { io, out } = capturedIo({ json: true });
    await expect(run({ file, identity }, { io })).rejects.toMatchObject({
      exitCode: 2,
      message: `--json prints one JSON document; ${file} holds csv, which decrypting writes as it is`,
      hint: 'drop --json, or add --out codes.csv',
    });
    expect(out()).toBe('');
  });

  it('refuses --query, which it would not apply', async () => {
    const { file, identity } = await sealed('sealed.csv.age', CSV);
    const { io, out } = capturedIo({ json: true });
    io.query = await compileQuery('[0]');
    await expect(run({ file, identity }, { io })).rejects.toMatchObject({
      exitCode: 2,
      message: '--query is not applied by codes decrypt: it writes the file as it went in',
    });
    expect(out()).toBe('');
  });

  it('still writes a JSON file as it is with --json, and a CSV one without it', async () => {
    const json = await sealed('sealed.json.age', '[{"code":"CODE-ONE"}]\n');
    const asJson = capturedIo({ json: true });
    await run(json, { io: asJson.io });
    expect(JSON.parse(asJson.out())).toEqual([{ code: 'CODE-ONE' }]);
    const csv = await sealed('sealed.csv.age', CSV);
    const plain = capturedIo();
    await run(csv, { io: plain.io });
    expect(plain.out()).toBe(CSV);
  });
});

describe('codes decrypt of a workbook to standard output', () => {
  // A walkthrough: `codes decrypt s.xlsx.age --identity key.txt` at a terminal poured the zip's bytes onto it, exit 0.
  it('refuses a terminal (exit 2, the way to a file), and still writes the bytes to a redirect', async () => {
    const bytes = 'PK\u0003\u0004 a workbook';
    const { file, identity } = await sealed('s.xlsx.age', bytes);
    const tty = terminalIo(80);
    let printed = '';
    tty.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString('latin1')));
    await expect(run({ file, identity }, { io: tty })).rejects.toMatchObject({
      exitCode: 2,
      code: 'xlsx_to_stdout',
      message: `${file} holds a workbook (xlsx, binary): it is not written to a terminal`,
      hint: 'add --out codes.xlsx, or redirect standard output to a file',
    });
    expect(printed).toBe('');
    const redirected = capturedIo();
    await run({ file, identity }, { io: redirected.io });
    expect(redirected.out()).toBe(bytes);
  });
});
