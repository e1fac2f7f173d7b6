// Sign-in with oidc-client-ts: authorization code flow with PKCE against the server's identity provider (or the
// external one /web-config.json names). Tokens stay in memory (InMemoryWebStorage) and are renewed silently with
// the refresh token; the answer comes back in the URL fragment, which no server ever sees or logs.
import { InMemoryWebStorage, UserManager, WebStorageStateStore, type User } from 'oidc-client-ts';

export interface WebConfig {
  authority: string;
  clientId: string;
}

export function createUserManager(config: WebConfig): UserManager {
  return new UserManager({
    authority: config.authority,
    client_id: config.clientId,
    redirect_uri: `${location.origin}/`,
    post_logout_redirect_uri: `${location.origin}/`,
    response_type: 'code',
    response_mode: 'fragment',
    scope: 'openid',
    loadUserInfo: false,
    automaticSilentRenew: true,
    monitorSession: false,
    userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
    // Only the PKCE verifier and state of a sign-in under way, for the redirect back (never a token).
    stateStore: new WebStorageStateStore({ store: sessionStorage }),
  });
}

/** True when the URL carries the identity provider's answer (code or error) in its fragment. */
export function isSignInCallback(): boolean {
  const fragment = new URLSearchParams(location.hash.slice(1));
  return fragment.has('state') && (fragment.has('code') || fragment.has('error'));
}

export type { User };
