// The signed-in user (from /api/v4/users/me) and what they may do, for every page; the notice every page shows
// once the session has expired (the token ran out, silent renew failed, or the API refused the token).
import { createContext, useContext } from 'react';
import { FirmscopeApiError } from './api.js';

export interface Session {
  email: string;
  role: string;
  permissions: string[];
  signOut(): void;
  /** Signs in again through the identity provider and comes back to the current page. */
  signIn(): void;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** True when the signed-in user holds `permission` (the server refuses the rest anyway). */
export function useCan(permission: string): boolean {
  return useSession().permissions.includes(permission);
}

/** True for the API's refusal of a missing, expired or revoked token (401). */
export function isSessionError(error: unknown): boolean {
  return error instanceof FirmscopeApiError && error.status === 401;
}

/** "Your session expired" with a sign-in button that returns to this page. */
export function SessionExpired({ onSignIn }: { onSignIn?: () => void }) {
  const session = useContext(SessionContext);
  const signIn = onSignIn ?? session?.signIn;
  return (
    <div className="notice error session-expired" role="alert">
      <strong>Your session expired.</strong> Sign in again to continue here; nothing you saved is lost.
      {signIn && <p><button type="button" className="primary" onClick={signIn}>Sign in again</button></p>}
    </div>
  );
}
