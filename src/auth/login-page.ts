// The identity provider's login page: small, server-rendered, no scripts at all, one inline style block allowed by
// a per-response CSP nonce. Pure: parameters in, HTML out (every value escaped).

export interface LoginPageInput {
  /** The authorization request's parameters, carried through the form as hidden fields. */
  hidden: Record<string, string>;
  csrfToken: string;
  styleNonce: string;
  action: string;
  email?: string;
  error?: string;
}

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
:root { color-scheme: light dark; --bg: #f5f6f8; --card: #fff; --fg: #1b1f24; --muted: #57606a; --accent: #0b57d0; --border: #c4c9d0; --err: #b3261e; }
@media (prefers-color-scheme: dark) { :root { --bg: #0f1216; --card: #1a1f26; --fg: #e6e9ee; --muted: #a5adb8; --accent: #8ab4f8; --border: #3a424d; --err: #ffb4ab; } }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, sans-serif; }
main { width: min(100% - 2rem, 24rem); background: var(--card); border: 1px solid var(--border); border-radius: 12px; padding: 2rem; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
p { margin: 0 0 1.5rem; color: var(--muted); }
label { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
input[type=email], input[type=password] { width: 100%; padding: .6rem .7rem; font: inherit; color: inherit; background: transparent; border: 1px solid var(--border); border-radius: 6px; }
input:focus-visible, button:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
button { margin-top: 1.5rem; width: 100%; padding: .7rem; font: inherit; font-weight: 600; color: var(--card); background: var(--accent); border: 0; border-radius: 6px; cursor: pointer; }
.error { color: var(--err); font-weight: 600; margin: 0 0 1rem; }
`;

export function renderLoginPage(input: LoginPageInput): string {
  const hidden = Object.entries(input.hidden)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n      ');
  const error = input.error ? `<p class="error" role="alert" id="error">${escapeHtml(input.error)}</p>` : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Sign in · Firmscope</title>
  <style nonce="${escapeHtml(input.styleNonce)}">${STYLE}</style>
</head>
<body>
  <main>
    <h1>Sign in to Firmscope</h1>
    <p>Use your Firmscope account.</p>
    ${error}
    <form method="post" action="${escapeHtml(input.action)}">
      ${hidden}
      <input type="hidden" name="csrf_token" value="${escapeHtml(input.csrfToken)}">
      <label for="username">E-mail</label>
      <input id="username" name="username" type="email" autocomplete="username" required autofocus value="${escapeHtml(input.email ?? '')}"${input.error ? ' aria-describedby="error"' : ''}>
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required>
      <button type="submit">Sign in</button>
    </form>
  </main>
</body>
</html>`;
}

/** A page for a request that cannot be sent back to its client (unknown client, foreign redirect URI). */
export function renderAuthorizationErrorPage(message: string, styleNonce: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in error · Firmscope</title>
<style nonce="${escapeHtml(styleNonce)}">${STYLE}</style></head>
<body><main><h1>This sign-in request is not valid</h1><p class="error" role="alert">${escapeHtml(message)}</p><p>Go back to the application and try again.</p></main></body>
</html>`;
}

/** After a logout without (or with a foreign) post_logout_redirect_uri. */
export function renderSignedOutPage(styleNonce: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Signed out · Firmscope</title>
<style nonce="${escapeHtml(styleNonce)}">${STYLE}</style></head>
<body><main><h1>You are signed out</h1><p>Your Firmscope sign-in session ended. <a href="/">Sign in again</a>.</p></main></body>
</html>`;
}
