// A stand-in external OIDC issuer (a Keycloak realm): an RS256 key pair whose JWKS is served on 127.0.0.1 at
// the Keycloak path, and a signer of its tokens.
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

export interface TestIssuer {
  /** The issuer URL (`iss` of its tokens). */
  issuer: string;
  /**
   * A token with `claims`, subject `sub`, issued now. `exp` is 5 minutes ahead unless `expires: false`; `key`
   * signs with another key (an impostor).
   */
  sign(sub: string, claims: Record<string, unknown>, options?: { expires?: boolean; key?: CryptoKey }): Promise<string>;
  close(): Promise<void>;
}

export async function startTestIssuer(): Promise<TestIssuer> {
  const pair = await generateKeyPair('RS256', { extractable: true });
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'ext-1', alg: 'RS256', use: 'sig' }] });
  const server: Server = createServer((request, response) => {
    const found = request.url?.endsWith('/protocol/openid-connect/certs');
    response.statusCode = found ? 200 : 404;
    response.setHeader('content-type', 'application/json');
    response.end(found ? jwks : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}/realms/corp`;
  return {
    issuer,
    sign(sub, claims, options = {}) {
      const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'ext-1' }).setIssuer(issuer).setSubject(sub).setIssuedAt();
      if (options.expires !== false) jwt.setExpirationTime('5m');
      return jwt.sign(options.key ?? (pair.privateKey as CryptoKey));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
