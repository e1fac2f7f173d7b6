// The identity provider's RS256 signing key, persisted in the database so every server process (and every
// restart) signs and verifies with the same key.
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import { newId } from '../ids.js';
import type { IdentityRepository } from '../store/identity.repository.js';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwks: JWK[];
}

export async function loadSigningKey(identities: IdentityRepository): Promise<SigningKey> {
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
