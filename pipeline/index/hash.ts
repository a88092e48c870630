// Content hashes used for provenance and caching: git blob SHA-1 (what SWHIDs name) and SHA-256.
import { createHash } from 'node:crypto';

/** `git hash-object` of a file's bytes: sha1("blob <size>\0" + bytes). */
export function gitBlobSha1(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}
