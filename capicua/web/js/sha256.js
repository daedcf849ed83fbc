// sha256 in the browser (SubtleCrypto), so that a page checks a revealed seed
// against the hash shown before the deal on its own, not on the server's word.
// The verify page and the replay page use it.

/** sha256 of `text` in hex; null where the browser offers no SubtleCrypto (plain http). */
export async function browserSha256(text) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (!subtle) return null;
  try {
    const digest = await subtle.digest('SHA-256', new TextEncoder().encode(text));
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  } catch (_) { return null; }
}
