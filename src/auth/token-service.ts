// Issues and verifies the identity provider's RS256 tokens, and hands an external issuer's tokens to
// ExternalIssuer (external-issuer.ts). Access and refresh tokens are JWTs told apart by their `typ` claim.
import { createLocalJWKSet, jwtVerify, SignJWT, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { UnauthenticatedError } from '../errors.js';
import type { IdentityRepository, User } from '../store/identity.repository.js';
import { newId } from '../ids.js';
import { ExternalIssuer, type ExternalIssuerSettings } from './external-issuer.js';
import { describeJoseError } from './jose-errors.js';
import type { Principal } from './principal.js';
import type { SigningKey } from './signing-keys.js';

export interface TokenSettings {
  issuer: string;
  publicClientId: string;
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  external?: ExternalIssuerSettings;
}

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
  id_token?: string;
  scope: string;
}

interface FirmscopeClaims extends JWTPayload {
  typ?: string;
  org?: string;
  email?: string;
  azp?: string;
  scope?: string;
  realm_access?: { roles?: string[] };
  resource_access?: Record<string, { roles?: string[] }>;
}

export class TokenService {
  private readonly localKeys: JWTVerifyGetKey;
  private readonly external?: ExternalIssuer;

  constructor(
    private readonly key: SigningKey,
    private readonly settings: TokenSettings,
    private readonly identities: IdentityRepository,
  ) {
    this.localKeys = createLocalJWKSet({ keys: key.publicJwks });
    if (settings.external) this.external = new ExternalIssuer(settings.external, identities);
  }

  get jwks() {
    return { keys: this.key.publicJwks };
  }

  private sign(claims: FirmscopeClaims, subject: string, seconds: number, audience: string): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: this.key.kid, typ: 'JWT' })
      .setIssuer(this.settings.issuer)
      .setSubject(subject)
      .setAudience(audience)
      .setIssuedAt()
      .setJti(newId())
      .setExpirationTime(`${seconds}s`)
      .sign(this.key.privateKey);
  }

  async issue(user: User, clientId: string, scope: string): Promise<IssuedTokens> {
    const base: FirmscopeClaims = { org: user.orgId, email: user.email, azp: clientId, scope, realm_access: { roles: [user.role] } };
    const { accessTokenSeconds: access, refreshTokenSeconds: refresh } = this.settings;
    const tokens: IssuedTokens = {
      access_token: await this.sign({ ...base, typ: 'Bearer' }, user.id, access, 'account'),
      token_type: 'Bearer',
      expires_in: access,
      refresh_token: await this.sign({ typ: 'Refresh', org: user.orgId, azp: clientId, scope }, user.id, refresh, this.settings.issuer),
      refresh_expires_in: refresh,
      scope,
    };
    if (scope.split(' ').includes('openid')) {
      tokens.id_token = await this.sign({ typ: 'ID', email: user.email, azp: clientId }, user.id, access, clientId);
    }
    return tokens;
  }

  /** The user behind a refresh token, or UnauthenticatedError. */
  async verifyRefresh(token: string): Promise<{ user: User; clientId: string; scope: string }> {
    const claims = await this.verifyLocal(token, this.settings.issuer);
    if (claims.typ !== 'Refresh') throw new UnauthenticatedError('not a refresh token');
    const user = await this.activeUser(claims.sub);
    return { user, clientId: String(claims.azp ?? ''), scope: String(claims.scope ?? 'openid') };
  }

  /** Verifies a bearer access token (ours, or the external issuer's) and returns the caller. */
  async authenticate(token: string): Promise<Principal> {
    const issuer = peekIssuer(token);
    if (this.external && issuer === this.external.settings.issuer) return this.external.authenticate(token);
    const claims = await this.verifyLocal(token, 'account');
    if (claims.typ !== 'Bearer') throw new UnauthenticatedError('the token is not an access token');
    const user = await this.activeUser(claims.sub);
    return { userId: user.id, orgId: user.orgId, email: user.email, role: user.role, kind: user.kind };
  }

  private async verifyLocal(token: string, audience: string): Promise<FirmscopeClaims> {
    try {
      const { payload } = await jwtVerify<FirmscopeClaims>(token, this.localKeys, {
        issuer: this.settings.issuer, audience, algorithms: ['RS256'], requiredClaims: ['exp', 'sub'],
      });
      return payload;
    } catch (error) {
      throw new UnauthenticatedError(describeJoseError(error));
    }
  }

  private async activeUser(id: string | undefined): Promise<User> {
    const user = id ? await this.identities.findUser(id) : undefined;
    if (!user || user.status !== 'active') throw new UnauthenticatedError('the account of this token no longer exists or is disabled');
    return user;
  }
}

function peekIssuer(token: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: unknown };
    return typeof payload.iss === 'string' ? payload.iss : undefined;
  } catch {
    return undefined;
  }
}
