// The CA certificates trusted in addition to Node's own: --ca-file (or GIFTCODES_CA_FILE), and SSL_CERT_FILE and
// SSL_CERT_DIR, which curl, gh, Python and Go read. Every source adds to Node's roots; none replaces them
// (docs/proxies-and-tls.md). Loaded only when one of them is given.
import type { Stats } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { splitPem } from '../api/transport.js';
import { LocalError, UsageError } from '../errors.js';
import { whyUnreadable } from '../files/errno.js';
import { checkOwnership } from './paths.js';

/** OpenSSL's hashed directory names a certificate `<8 hex digits>.<n>` (`.r<n>` is a CRL, not read). */
const CERTIFICATE_NAME = /^(?:[0-9a-f]{8}\.\d+|.+\.(?:pem|crt|cer))$/i;

export interface CaSources {
  /** --ca-file or GIFTCODES_CA_FILE, and which of the two (for messages). */
  file?: string | undefined;
  fileWhere: string;
  /** SSL_CERT_FILE. */
  certFile?: string | undefined;
  /** SSL_CERT_DIR: directories separated by `:` (`;` on Windows), as OpenSSL reads it. */
  certDir?: string | undefined;
}

/** The certificates of every source given, as PEM text; undefined when there are none. */
export async function trustedCa(sources: CaSources): Promise<string | undefined> {
  // Each file is read once however many names it has: /etc/ssl/certs holds every certificate under its own
  // name, under OpenSSL's hash link, and again in the bundle SSL_CERT_FILE usually names.
  const read = new Set<string>();
  const files = await Promise.all([
    sources.file ? readCaFile(sources.file, sources.fileWhere, read) : '',
    sources.certFile ? readCaFile(sources.certFile, 'SSL_CERT_FILE', read) : '',
  ]);
  const dirs = sources.certDir ? await readCaDirs(sources.certDir, read) : [];
  const certificates = [...files.flatMap(splitPem), ...dirs];
  return certificates.length === 0 ? undefined : certificates.join('\n');
}

/**
 * A file of PEM certificates, `where` naming what gave it (--ca-file, GIFTCODES_CA_FILE, SSL_CERT_FILE): exit 8
 * when it cannot be read or others could plant a CA in it, exit 2 when it holds no certificate.
 */
async function readCaFile(path: string, where: string, read: Set<string>): Promise<string> {
  let text: string;
  try {
    // Whoever can write the CA file can vouch for any server: refused as a config file would be (exit 8). That
    // others can read it is no warning here: certificates are public (/etc/ssl/certs is 0644 by design).
    const stats = await stat(path);
    firstRead(stats, read);
    // A directory is said to be one (below, by the read's EISDIR), never given the file's chmod: `--ca-file /tmp` was
    // told "run: chmod 700 /tmp" (a review).
    if (!stats.isDirectory()) void checkOwnership(path, stats, 'CA file');
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof LocalError) throw error;
    throw new LocalError(`cannot read the CA file ${path} (${where}): ${whyUnreadable(error, 'file')}`, {
      code: 'ca_file_unreadable',
      hint: caFileHint(errorCode(error), path, where),
    });
  }
  if (splitPem(text).length === 0) {
    throw new UsageError(`the CA file ${path} (${where}) holds no PEM certificate`, {
      code: 'ca_file_invalid',
      hint: 'it must contain -----BEGIN CERTIFICATE----- blocks (convert DER with: openssl x509 -inform der -in ca.cer -out ca.pem)',
    });
  }
  return text;
}

/**
 * The PEM certificates in SSL_CERT_DIR's directories: each file named `*.pem`, `*.crt`, `*.cer` or as OpenSSL's
 * hash links. A directory that cannot be read, or that others can write, is exit 8; a file holding no
 * certificate is passed over, as OpenSSL passes it over, and so is a link to nothing (a certificate removed
 * without its hash link).
 */
async function readCaDirs(list: string, read: Set<string>): Promise<string[]> {
  const dirs = list.split(delimiter).filter((dir) => dir !== '');
  const perDir = await Promise.all(
    dirs.map(async (dir) => {
      let names: string[];
      try {
        void checkOwnership(dir, await stat(dir), 'CA directory');
        names = await readdir(dir);
      } catch (error) {
        if (error instanceof LocalError) throw error;
        throw new LocalError(
          `cannot read the CA directory ${dir} (SSL_CERT_DIR): ${whyUnreadable(error, 'directory')}`,
          {
            code: 'ca_file_unreadable',
            hint: `SSL_CERT_DIR is a list of directories of PEM certificates separated by "${delimiter}": fix it, or unset it`,
          },
        );
      }
      const texts = await Promise.all(
        names.filter((name) => CERTIFICATE_NAME.test(name)).map((name) => readDirEntry(join(dir, name), read)),
      );
      return texts.flatMap(splitPem);
    }),
  );
  return perDir.flat();
}

async function readDirEntry(path: string, read: Set<string>): Promise<string> {
  try {
    const stats = await stat(path);
    if (!stats.isFile()) return '';
    void checkOwnership(path, stats, 'CA file');
    if (!firstRead(stats, read)) return '';
    return await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof LocalError) throw error;
    if (errorCode(error) === 'ENOENT') return '';
    throw new LocalError(`cannot read the CA file ${path} (in SSL_CERT_DIR): ${whyUnreadable(error, 'file')}`, {
      code: 'ca_file_unreadable',
      hint: 'make it readable, or remove it from the directory',
    });
  }
}

/** Whether this file (its device and inode) is read here for the first time; from now on it counts as read. */
function firstRead(stats: Stats, read: Set<string>): boolean {
  const id = `${stats.dev}:${stats.ino}`;
  if (read.has(id)) return false;
  read.add(id);
  return true;
}

/** The way on from a CA file that cannot be read, for its cause and for what named it. */
function caFileHint(code: string, path: string, where: string): string {
  const instead =
    where === 'SSL_CERT_FILE'
      ? 'point SSL_CERT_FILE at a PEM file of CA certificates, or unset it'
      : `give ${where} the path of a PEM file of CA certificates`;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return `check the path: ${instead}`;
    case 'EISDIR':
      return `a directory of certificates is SSL_CERT_DIR's: ${instead}`;
    case 'EACCES':
    case 'EPERM':
      return `make it readable by this user (as its owner: chmod 644 ${path}), or ${instead}`;
    default:
      return instead;
  }
}

function errorCode(error: unknown): string {
  return (error as { code?: string }).code ?? 'unreadable';
}
