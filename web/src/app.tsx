// The signed-in frame (header, navigation, sign-out) around the page the path selects, and the signed-out states.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { UserManager } from 'oidc-client-ts';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, expectData, setTokenSource } from './api.js';
import type { User } from './auth.js';
import { AdminPage } from './pages/admin.js';
import { ComparePage } from './pages/compare.js';
import { DashboardPage } from './pages/dashboard.js';
import { FindingPage } from './pages/finding.js';
import { ImagePage } from './pages/image.js';
import { ProductPage } from './pages/product.js';
import { Link, match, useLocation } from './router.js';
import { SessionContext, type Session } from './session.js';
import { Empty, ErrorNotice, Loading } from './ui.js';

type SignedOutReason = 'signed-out' | 'expired' | 'new';

export function App({ users, initialUser, signInError }: { users: UserManager; initialUser: User | null; signInError?: string }) {
  const [user, setUser] = useState<User | null>(initialUser);
  const [reason, setReason] = useState<SignedOutReason>(() => {
    if (!new URLSearchParams(location.search).has('signed-out')) return 'new';
    history.replaceState(null, '', '/');
    return 'signed-out';
  });
  const queries = useQueryClient();

  useEffect(() => {
    const loaded = (u: User) => setUser(u);
    const expired = () => { setUser(null); setReason('expired'); };
    users.events.addUserLoaded(loaded);
    users.events.addAccessTokenExpired(expired);
    users.events.addSilentRenewError(expired);
    return () => {
      users.events.removeUserLoaded(loaded);
      users.events.removeAccessTokenExpired(expired);
      users.events.removeSilentRenewError(expired);
    };
  }, [users]);

  setTokenSource(() => user?.access_token);
  const signIn = () => void users.signinRedirect({ state: location.pathname + location.search });
  // Forget the tokens, then end the identity provider's sign-in session (no id_token_hint: no token in a URL).
  const signOut = async () => {
    const endSession = await users.metadataService.getEndSessionEndpoint().catch(() => undefined);
    await users.removeUser();
    queries.clear();
    if (endSession) {
      const url = new URL(endSession);
      url.searchParams.set('client_id', users.settings.client_id);
      url.searchParams.set('post_logout_redirect_uri', `${location.origin}/?signed-out`);
      location.assign(url.toString());
      return;
    }
    setReason('signed-out');
    setUser(null);
  };

  // A new visitor goes straight to the login page; after a sign-out or an expiry they choose to.
  useEffect(() => {
    if (!user && reason === 'new' && !signInError) signIn();
  }, [user, reason, signInError]);

  if (!user) return <SignedOut reason={reason} error={signInError} onSignIn={signIn} />;
  return <SignedIn onSignOut={signOut} />;
}

function SignedOut({ reason, error, onSignIn }: { reason: SignedOutReason; error?: string; onSignIn(): void }) {
  const message = error ? `Sign-in did not complete: ${error}` : reason === 'expired' ? 'Your session expired. Sign in again to continue where you were.' : reason === 'signed-out' ? 'You are signed out.' : 'Redirecting to the sign-in page…';
  return (
    <main id="main" className="signed-out">
      <h1>Firmscope</h1>
      <p role="status">{message}</p>
      {(error || reason !== 'new') && <button type="button" className="primary" onClick={onSignIn}>Sign in</button>}
    </main>
  );
}

function SignedIn({ onSignOut }: { onSignOut(): void }) {
  const me = useQuery({ queryKey: ['me'], queryFn: async () => expectData(await api.GET('/api/v4/users/me')) });
  const session = useMemo<Session | undefined>(() => me.data && {
    email: me.data.email, role: String(me.data.role), permissions: me.data.permissions ?? [], signOut: onSignOut,
  }, [me.data, onSignOut]);
  if (me.error) return <main id="main" className="signed-out"><ErrorNotice error={me.error} action="Sign out and sign in again." /><button type="button" onClick={onSignOut}>Sign out</button></main>;
  if (!session) return <main id="main"><Loading what="your account" /></main>;
  return (
    <SessionContext.Provider value={session}>
      <a className="skip" href="#main">Skip to content</a>
      <header className="top">
        <Link href="/" className="brand">Firmscope</Link>
        <nav aria-label="Main">
          <Link href="/">Dashboard</Link>
          <Link href="/compare">Compare</Link>
          {session.permissions.includes('users.manage') && <Link href="/admin">Administration</Link>}
          <a href="/docs" target="_blank" rel="noreferrer">API docs</a>
        </nav>
        <div className="who">
          <span className="muted" title={`Role: ${session.role}`}>{session.email}</span>
          <button type="button" onClick={onSignOut}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}><Routes /></main>
    </SessionContext.Provider>
  );
}

function Routes(): ReactNode {
  const { path } = useLocation();
  let params: Record<string, string> | undefined;
  if (path === '/' || path === '') return <DashboardPage />;
  if ((params = match('/products/:productId', path))) return <ProductPage productId={params.productId!} />;
  if ((params = match('/products/:productId/images/:imageId', path))) return <ImagePage productId={params.productId!} imageId={params.imageId!} />;
  if ((params = match('/products/:productId/findings/:findingId', path))) return <FindingPage productId={params.productId!} findingId={params.findingId!} />;
  if (path === '/compare') return <ComparePage />;
  if (path === '/admin') return <AdminPage />;
  return <Empty title="There is no page here."><p><Link href="/">Go to the dashboard</Link>.</p></Empty>;
}
