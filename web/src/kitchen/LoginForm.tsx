/** E-mail and password; errors under the form. The submit click also unlocks the new-order sound. */
import { useState } from 'preact/hooks';
import { ApiError } from '../shared/api.js';
import type { Session } from '../shared/session.js';
import { unlock } from './sound.js';
import { strings as t } from './strings.js';

export function LoginForm({ session, notice, onDone }: { session: Session; notice?: string; onDone: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    unlock();
    if (!email.trim() || !password) return setError(t.fillBoth);
    setBusy(true);
    setError(null);
    try {
      await session.login(email.trim(), password);
      setPassword('');
      onDone();
    } catch (err) {
      const status = err instanceof ApiError ? err.status : 0;
      setError(status === 401 || status === 400 ? t.badCredentials : status === 429 ? t.tooManyAttempts : status === 0 ? t.networkError : t.loginFailed);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="panel login" onSubmit={submit} aria-labelledby="login-heading" noValidate>
      <h2 id="login-heading">{t.loginHeading}</h2>
      {notice && !error && <p class="notice" role="status">{notice}</p>}
      <label for="login-email">{t.email}</label>
      <input
        id="login-email"
        type="email"
        autocomplete="username"
        required
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? 'login-error' : undefined}
      />
      <label for="login-password">{t.password}</label>
      <input
        id="login-password"
        type="password"
        autocomplete="current-password"
        required
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? 'login-error' : undefined}
      />
      {error && (
        <p id="login-error" class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" class="btn btn-primary" data-testid="login" disabled={busy}>
        {busy ? t.loggingIn : t.loginButton}
      </button>
    </form>
  );
}
