// The identity provider's RS256 signing key. With FIRMSCOPE_SIGNING_KEY every server signs with that key (shared by
// configuration, e.g. a Kubernetes Secret); otherwise a key is generated once and persisted in the database, so
// every server process (and every restart) signs and verifies with the same key.
import { createPrivateKey } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import { newId } from '../ids.js';
import type { IdentityRepository } from '../store/identity.repository.js';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwks: JWK[];
}

/**
 * The key to sign with and the public keys to verify and publish. A configured key signs; the keys stored in the
 * database stay published so that tokens they signed before the switch verify until they expire.
 */
export async function loadSigningKey(identities: IdentityRepository, configuredPem?: string): Promise<SigningKey> {
  if (configuredPem) {
    const stored = await identities.listSigningKeys();
    const configured = await configuredKey(configuredPem);
    const others = stored.map((k) => JSON.parse(k.publicJwk) as JWK).filter((jwk) => jwk.kid !== configured.kid);
    return { ...configured, publicJwks: [...configured.publicJwks, ...others] };
  }
  let keys = await identities.listSigningKeys();
  if (keys.length === 0) {
    const pair = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
    const kid = newId();
    const privateJwk = await exportJWK(pair.privateKey);
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' };
    await identities.addSigningKey({ kid, privateJwk: JSON.stringify(privateJwk), publicJwk: JSON.stringify(publicJwk) });
    // Another process may have stored its key at the same moment: everyone uses the newest stored key.
    keys = await identities.listSigningKeys();
  }
  const current = keys[0]!;
  const privateKey = (await importJWK(JSON.parse(current.privateJwk) as JWK, 'RS256')) as CryptoKey;
  return { kid: current.kid, privateKey, publicJwks: keys.map((k) => JSON.parse(k.publicJwk) as JWK) };
}

/** A configured PEM key; its kid is the RFC 7638 thumbprint, so every server holding the key names it alike. */
async function configuredKey(pem: string): Promise<SigningKey> {
  const privateJwk = createPrivateKey(pem).export({ format: 'jwk' }) as JWK;
  const { n, e, kty } = privateJwk;
  const kid = await calculateJwkThumbprint({ kty, n, e });
  const privateKey = (await importJWK(privateJwk, 'RS256')) as CryptoKey;
  return { kid, privateKey, publicJwks: [{ kty, n, e, kid, alg: 'RS256', use: 'sig' }] };
}
