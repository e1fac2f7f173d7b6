// Tokens of an external OIDC issuer (a Keycloak realm), verified by its JWKS. An external identity is bound by
// (issuer, sub) to a local user of the configured organisation, made at its first sign-in; it is never matched
// to an existing account by e-mail or username (an issuer may let anyone claim any e-mail). A token is accepted
// only with an expiry, and only when its `aud` or `azp` names this service's client at the issuer.
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { ConfigError, type Config } from '../config.js';
import { ConflictError, UnauthenticatedError } from '../errors.js';
import type { IdentityRepository, User } from '../store/identity.repository.js';
import type { Role } from '../store/schema.js';
import { describeJoseError } from './jose-errors.js';
import type { Principal } from './principal.js';

export interface ExternalIssuerSettings {
  issuer: string;
  /** Absent: the Keycloak path `{issuer}/protocol/openid-connect/certs`. */
  jwksUrl?: string;
  /** This service's client at the issuer: tokens must name it in `aud` or `azp`; its client roles map to ours. */
  clientId: string;
  /** Organisation of every external user. */
  orgId: string;
}

interface ExternalClaims extends JWTPayload {
  typ?: string;
  azp?: string;
  email?: string;
  email_verified?: boolean;
  realm_access?: { roles?: string[] };
  resource_access?: Record<string, { roles?: string[] }>;
}

/** The external issuer settings of `config`, with its organisation resolved; undefined when none is set. */
export async function externalIssuerSettings(config: Config, identities: IdentityRepository): Promise<ExternalIssuerSettings | undefined> {
  if (!config.externalIssuer || !config.externalAudience) return undefined;
  const org = await identities.findOrgByName(config.externalOrg);
  if (!org) {
    throw new ConfigError([
      `FIRMSCOPE_EXTERNAL_ORG=${config.externalOrg}: no such organisation; create it first (firmscope orgs add ${config.externalOrg} --admin-email E)`,
    ]);
  }
  return { issuer: config.externalIssuer, jwksUrl: config.externalJwksUrl, clientId: config.externalAudience, orgId: org.id };
}

export class ExternalIssuer {
  private readonly keys: JWTVerifyGetKey;

  constructor(
    readonly settings: ExternalIssuerSettings,
    private readonly identities: IdentityRepository,
  ) {
    this.keys = createRemoteJWKSet(new URL(settings.jwksUrl ?? `${settings.issuer}/protocol/openid-connect/certs`));
  }

  async authenticate(token: string): Promise<Principal> {
    const { issuer, clientId } = this.settings;
    let claims: ExternalClaims;
    try {
      ({ payload: claims } = await jwtVerify<ExternalClaims>(token, this.keys, {
        issuer, algorithms: ['RS256', 'ES256', 'PS256'], requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      throw new UnauthenticatedError(describeJoseError(error));
    }
    // Keycloak marks its ID and refresh tokens in `typ`; only access tokens authorise API calls.
    if (claims.typ !== undefined && claims.typ !== 'Bearer') throw new UnauthenticatedError(`the external token is not an access token (typ '${claims.typ}')`);
    const audiences = [...(Array.isArray(claims.aud) ? claims.aud : claims.aud ? [claims.aud] : []), ...(claims.azp ? [claims.azp] : [])];
    if (!audiences.includes(clientId)) {
      throw new UnauthenticatedError(`the external token is not meant for this service: its aud or azp must name the client '${clientId}'`);
    }
    const roles = [...(claims.realm_access?.roles ?? []), ...(claims.resource_access?.[clientId]?.roles ?? [])];
    const role = (['admin', 'editor', 'viewer'] as Role[]).find((r) => roles.some((x) => x === r || x === `firmscope-${r}`));
    if (!role) throw new UnauthenticatedError('the external token carries none of the roles admin, editor, viewer');
    const user = await this.boundUser(claims.sub!, role, claims);
    if (user.orgId !== this.settings.orgId) throw new UnauthenticatedError('this external identity belongs to another organisation than FIRMSCOPE_EXTERNAL_ORG');
    if (user.status !== 'active') throw new UnauthenticatedError('this account is disabled');
    // The role comes from the token on every call: the issuer stays the authority on it.
    return { userId: user.id, orgId: user.orgId, email: user.email, role, kind: 'user' };
  }

  /** The user bound to (issuer, sub), made on the first sign-in. */
  private async boundUser(subject: string, role: Role, claims: ExternalClaims): Promise<User> {
    const { issuer, orgId } = this.settings;
    const bound = await this.identities.findExternalUser(issuer, subject);
    if (bound) return bound;
    try {
      return await this.identities.createExternalUser({ issuer, subject, orgId, role, email: await this.displayEmail(subject, claims) });
    } catch (error) {
      // A concurrent first sign-in of the same subject bound it first, or took the e-mail: use its binding, or
      // bind with the placeholder address.
      if (!(error instanceof ConflictError)) throw error;
      const raced = await this.identities.findExternalUser(issuer, subject);
      if (raced) return raced;
      return this.identities.createExternalUser({ issuer, subject, orgId, role, email: placeholderEmail(issuer, subject) });
    }
  }

  /**
   * The e-mail shown for the new user: the token's e-mail when the issuer says it is verified and no account uses
   * it yet, otherwise a placeholder under the reserved .invalid domain. Either way the binding is by subject only.
   */
  private async displayEmail(subject: string, claims: ExternalClaims): Promise<string> {
    const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : undefined;
    const usable = email && claims.email_verified === true && /^[^@\s]+@[^@\s]+$/.test(email) && email.length <= 254 && !email.endsWith('.invalid');
    if (usable && !(await this.identities.findUserByEmail(email))) return email;
    return placeholderEmail(this.settings.issuer, subject);
  }
}

function placeholderEmail(issuer: string, subject: string): string {
  return `external-${createHash('sha256').update(`${issuer}\n${subject}`).digest('hex').slice(0, 24)}@external.invalid`;
}
