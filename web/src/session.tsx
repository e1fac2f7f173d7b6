// The signed-in user (from /api/v4/users/me) and what they may do, for every page.
import { createContext, useContext } from 'react';

export interface Session {
  email: string;
  role: string;
  permissions: string[];
  signOut(): void;
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
