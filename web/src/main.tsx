// Boot: read where to sign in, finish a sign-in that comes back in the URL fragment, then render the app.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, preloadPage } from './app.js';
import { createUserManager, isSignInCallback, type WebConfig } from './auth.js';
import './styles.css';

async function boot() {
  const root = createRoot(document.getElementById('root')!);
  // The first page's code loads while the sign-in completes (its path, or the one the sign-in comes back to).
  const preload = isSignInCallback() ? undefined : preloadPage(location.pathname);
  const config = (await (await fetch('/web-config.json')).json()) as WebConfig;
  const users = createUserManager(config);
  let returnTo: string | undefined;
  let signInError: string | undefined;
  if (isSignInCallback()) {
    try {
      const user = await users.signinRedirectCallback(location.href);
      returnTo = typeof user.state === 'string' ? user.state : '/';
    } catch (error) {
      signInError = error instanceof Error ? error.message : String(error);
    }
    // Drop the code from the address bar and history at once.
    history.replaceState(null, '', returnTo ?? '/');
  }
  await (preload ?? preloadPage(location.pathname)).catch(() => undefined);
  const queries = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 5_000 } } });
  root.render(
    <StrictMode>
      <QueryClientProvider client={queries}>
        <App users={users} initialUser={await users.getUser()} signInError={signInError} />
      </QueryClientProvider>
    </StrictMode>,
  );
}

void boot();
