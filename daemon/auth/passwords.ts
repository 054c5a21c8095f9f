/**
 * Password hashing with scrypt and a per-user random salt, following the OWASP Password
 * Storage Cheat Sheet: N=2^17, r=8, p=1 (about 128 MiB and a few hundred ms per hash).
 * Format: `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>`, so a hash made with older (cheaper)
 * parameters is recognised and re-hashed at the next successful login (see needsRehash).
 * Also the password policy: length and the common-password list.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { COMMON_PASSWORDS } from './common-passwords.js';

const KEY_LENGTH = 64;

/** log2 of scrypt's N in production (OWASP: N=2^17, r=8, p=1). */
export const DEFAULT_SCRYPT_LOG_N = 17;
/** scrypt's block size and parallelism (OWASP). */
const BLOCK = { r: 8, p: 1 } as const;

/** Shortest password accepted at registration (OWASP ASVS 2.1.1 asks for 12 with, NIST 800-63B for 8 without MFA; the issue chose 10). */
export const MIN_PASSWORD_LENGTH = 10;
/** Longest password accepted (bounds the work of one hash). */
export const MAX_PASSWORD_LENGTH = 256;

/** scrypt parameters of one hash. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** Memory scrypt needs for these parameters (128·N·r bytes, plus 128·r·p), with headroom: Node refuses above `maxmem` (default 32 MiB). */
function maxmemFor({ N, r, p }: ScryptParams): number {
  return 128 * N * r + 128 * r * p + 16 * 1024 * 1024;
}

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: maxmemFor(params) };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function parse(stored: string): (ScryptParams & { salt: Buffer; hash: Buffer }) | undefined {
  const [scheme, n, r, p, saltB64, hashB64, ...rest] = stored.split('$');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !saltB64 || !hashB64 || rest.length > 0) return undefined;
  // Bounds keep a tampered row from asking for gigabytes (N ≤ 2^20, r ≤ 32, p ≤ 16).
  const ok = Number.isInteger(Math.log2(params.N)) && params.N >= 2 && params.N <= 2 ** 20 && params.r >= 1 && params.r <= 32 && params.p >= 1 && params.p <= 16;
  return ok ? { ...params, salt: Buffer.from(saltB64, 'base64'), hash: Buffer.from(hashB64, 'base64') } : undefined;
}

/** Hashes and verifies passwords with one set of target parameters. */
export interface PasswordHasher {
  readonly params: Readonly<ScryptParams>;
  /** Hash a password for storage with the target parameters. */
  hash(password: string): Promise<string>;
  /** Check a password against a stored hash (any parameters) in constant time; false for a malformed hash. */
  verify(password: string, stored: string): Promise<boolean>;
  /** True when the stored hash is cheaper than the target (or malformed): re-hash it after a successful login. */
  needsRehash(stored: string): boolean;
  /**
   * A stored-hash lookalike for unknown emails: the target scheme and parameters with a
   * random salt and a random "hash", so verifying any password against it costs one
   * derivation (like a wrong password) and never succeeds. Derives nothing itself.
   */
  decoy(): string;
}

/** Options of createPasswordHasher. */
export interface PasswordHasherOptions {
  /** log2 of scrypt's N; default DEFAULT_SCRYPT_LOG_N (17). Lower only in tests. */
  logN?: number;
}

/** Create a password hasher (target N = 2^logN, r = 8, p = 1). */
export function createPasswordHasher(options: PasswordHasherOptions = {}): PasswordHasher {
  const params: ScryptParams = { N: 2 ** (options.logN ?? DEFAULT_SCRYPT_LOG_N), ...BLOCK };
  const format = (salt: Buffer, key: Buffer) => ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
  return {
    params,
    async hash(password) {
      const salt = randomBytes(16);
      return format(salt, await derive(password, salt, params));
    },
    async verify(password, stored) {
      const parsed = parse(stored);
      if (!parsed) return false;
      const key = await derive(password, parsed.salt, parsed);
      return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
    },
    needsRehash(stored) {
      const parsed = parse(stored);
      return !parsed || parsed.N < params.N || parsed.r !== params.r || parsed.p !== params.p;
    },
    decoy: () => format(randomBytes(16), randomBytes(KEY_LENGTH)),
  };
}

let common: Set<string> | undefined;

/** True when the password (case-insensitively) is on the shipped list of common passwords. */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(COMMON_PASSWORDS.split(/\s+/).filter(Boolean));
  return common.has(password.normalize('NFKC').toLowerCase());
}
