/** Login and "forgot password" (the mailed link opens the service's own reset page, `/reset-password#token=…`). */
import { useState } from 'preact/hooks';
import { api as plain, ApiError } from '../shared/api.js';
import { navigate } from './router.js';
import { session } from './session.js';
import { strings as t } from './strings.js';
import { Field } from './ui/Field.js';
import { Link } from './ui/Link.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function LoginPage({ notice, next }: { notice?: string; next: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ email?: string; password?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const found = { email: !email.trim() ? t.required : !EMAIL.test(email.trim()) ? t.invalidEmail : undefined, password: password ? undefined : t.required };
    setErrors(found);
    if (found.email || found.password) return;
    setBusy(true);
    try {
      await session.login(email.trim(), password);
      navigate(next, { replace: true });
    } catch (err) {
      const status = err instanceof ApiError ? err.status : 0;
      setErrors({ form: status === 429 ? t.tooManyLogins : status === 401 ? t.badLogin : t.loadFailed });
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="auth" id="main">
      <form class="card auth-card" onSubmit={submit} noValidate aria-labelledby="login-heading">
        <h1 id="login-heading">{t.loginHeading}</h1>
        {notice && !errors.form && <p class="notice" role="status">{notice}</p>}
        {errors.form && <p class="form-error" role="alert">{errors.form}</p>}
        <Field label={t.email} error={errors.email} id="login-email">
          {(p) => <input {...p} type="email" autocomplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />}
        </Field>
        <Field label={t.password} error={errors.password} id="login-password">
          {(p) => <input {...p} type="password" autocomplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />}
        </Field>
        <button type="submit" class="btn primary wide" disabled={busy} data-testid="login">
          {busy ? t.loggingIn : t.login}
        </button>
        <p class="auth-links">
          <Link href="/admin/forgot">{t.forgotLink}</Link>
        </p>
      </form>
    </main>
  );
}

export function ForgotPage() {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    if (!EMAIL.test(email.trim())) return setError(email.trim() ? t.invalidEmail : t.required);
    setError(null);
    setBusy(true);
    try {
      await plain('/auth/password/forgot', { body: { email: email.trim() } });
      setSent(true);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 429 ? t.tooManyLogins : err instanceof ApiError ? (err.fieldMessage('email') ?? err.message) : t.loadFailed);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="auth" id="main">
      <form class="card auth-card" onSubmit={submit} noValidate aria-labelledby="forgot-heading">
        <h1 id="forgot-heading">{t.forgotHeading}</h1>
        {sent ? (
          <p class="notice" role="status">{t.forgotSent}</p>
        ) : (
          <>
            <p>{t.forgotHelp}</p>
            <Field label={t.email} error={error} id="forgot-email">
              {(p) => <input {...p} type="email" autocomplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />}
            </Field>
            <button type="submit" class="btn primary wide" disabled={busy}>
              {t.forgotSend}
            </button>
          </>
        )}
        <p class="auth-links">
          <Link href="/admin/login">{t.backToLogin}</Link>
        </p>
      </form>
    </main>
  );
}
