// The signed-in frame (header, navigation, sign-out) around the page the path selects, and the signed-out states.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { UserManager } from 'oidc-client-ts';
import { Suspense, useEffect, useMemo, useState, type ReactElement, type ReactNode } from 'react';
import { api, expectData, setTokenSource } from './api.js';
import type { User } from './auth.js';
import { lazyComponent } from './lazy-page.js';
import { Link, match, useLocation } from './router.js';
import { SessionContext, SessionExpired, type Session } from './session.js';
import { Empty, ErrorNotice, Loading } from './ui.js';

// Each page is its own chunk, loaded when first visited (boot preloads the first one: preloadPage).
const AdminPage = lazyComponent(() => import('./pages/admin.js').then((m) => m.AdminPage));
const ComparePage = lazyComponent(() => import('./pages/compare.js').then((m) => m.ComparePage));
const DashboardPage = lazyComponent(() => import('./pages/dashboard.js').then((m) => m.DashboardPage));
const FindingPage = lazyComponent(() => import('./pages/finding.js').then((m) => m.FindingPage));
const ImagePage = lazyComponent(() => import('./pages/image.js').then((m) => m.ImagePage));
const ProductPage = lazyComponent(() => import('./pages/product.js').then((m) => m.ProductPage));
const RulesPage = lazyComponent(() => import('./pages/rules.js').then((m) => m.RulesPage));
const WebhooksPage = lazyComponent(() => import('./pages/webhooks.js').then((m) => m.WebhooksPage));

type SignedOutReason = 'signed-out' | 'expired' | 'new';

export function App({ users, initialUser, signInError }: { users: UserManager; initialUser: User | null; signInError?: string }) {
  const [user, setUser] = useState<User | null>(initialUser);
  const [reason, setReason] = useState<SignedOutReason>(() => {
    if (!new URLSearchParams(location.search).has('signed-out')) return 'new';
    history.replaceState(null, '', '/');
    return 'signed-out';
  });
  const queries = useQueryClient();

  // An expired session keeps the page on screen with a sign-in prompt (SessionExpired); the API refuses the
  // stale token, and every page's error notice says the same thing.
  const [expired, setExpired] = useState(false);
  useEffect(() => {
    const loaded = (u: User) => { setUser(u); setExpired(false); };
    const onExpired = () => setExpired(true);
    users.events.addUserLoaded(loaded);
    users.events.addAccessTokenExpired(onExpired);
    users.events.addSilentRenewError(onExpired);
    return () => {
      users.events.removeUserLoaded(loaded);
      users.events.removeAccessTokenExpired(onExpired);
      users.events.removeSilentRenewError(onExpired);
    };
  }, [users]);

  // After an expiry the stale token is no longer sent: every call is refused (401) and says the session expired.
  setTokenSource(() => (expired ? undefined : user?.access_token));
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
  return <SignedIn onSignOut={signOut} onSignIn={signIn} expired={expired} />;
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

function SignedIn({ onSignOut, onSignIn, expired }: { onSignOut(): void; onSignIn(): void; expired: boolean }) {
  const me = useQuery({ queryKey: ['me'], queryFn: async () => expectData(await api.GET('/api/v4/users/me')) });
  const session = useMemo<Session | undefined>(() => me.data && {
    email: me.data.email, role: String(me.data.role), permissions: me.data.permissions ?? [], signOut: onSignOut, signIn: onSignIn,
  }, [me.data, onSignOut, onSignIn]);
  if (me.error) return <main id="main" className="signed-out"><ErrorNotice error={me.error} onSignIn={onSignIn} action="Sign out and sign in again." /><button type="button" onClick={onSignOut}>Sign out</button></main>;
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
          {session.permissions.includes('webhooks.manage') && <Link href="/webhooks">Webhooks</Link>}
          <a href="/docs" target="_blank" rel="noreferrer">API docs</a>
        </nav>
        <div className="who">
          <span className="muted" title={`Role: ${session.role}`}>{session.email}</span>
          <button type="button" onClick={onSignOut}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {expired && <SessionExpired />}
        <Suspense fallback={<Loading what="the page" />}><Routes /></Suspense>
      </main>
    </SessionContext.Provider>
  );
}

function Routes(): ReactNode {
  return pageAt(useLocation().path);
}

/** Starts loading the code of the page at `path` (boot calls it while it signs in). */
export function preloadPage(path: string): Promise<void> {
  const type = pageAt(path).type as { preload?: () => Promise<void> };
  return type.preload?.() ?? Promise.resolve();
}

function pageAt(path: string): ReactElement {
  let params: Record<string, string> | undefined;
  if (path === '/' || path === '') return <DashboardPage />;
  if ((params = match('/products/:productId', path))) return <ProductPage productId={params.productId!} />;
  if ((params = match('/products/:productId/images/:imageId', path))) return <ImagePage productId={params.productId!} imageId={params.imageId!} />;
  if ((params = match('/products/:productId/findings/:findingId', path))) return <FindingPage productId={params.productId!} findingId={params.findingId!} />;
  if (path === '/compare') return <ComparePage />;
  if (path === '/admin') return <AdminPage />;
  if (path === '/admin/rules') return <RulesPage />;
  if (path === '/webhooks') return <WebhooksPage />;
  return <Empty title="There is no page here."><p><Link href="/">Go to the dashboard</Link>.</p></Empty>;
}
