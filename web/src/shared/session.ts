/**
 * A staff page's login (kitchen display, admin panel): the token pair kept in localStorage under the
 * page's key, the access token renewed with the refresh token a minute before it expires (15 min) and
 * after a 401, one renewal at a time (a refresh token is spent by its use).
 */
import { api, ApiError, type ApiOptions } from './api.js';

interface TokenPair {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  user: { _id: string; name: string; email: string; isSuperadmin: boolean };
}
/** `GET /auth/me`: who is logged in and the tenants they work for. */
export interface Me {
  user: { _id: string; name: string; email: string; isSuperadmin: boolean };
  tenants: { _id: string; slug: string; name: string; isActive: boolean; role: string }[];
}

export interface StoredTokens {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms when the access token expires. */
  expiresAt: number;
  userName: string;
}

/** Renew this long before the access token expires. */
const RENEW_MARGIN_MS = 60_000;

export class Session {
  private tokens: StoredTokens | null;
  private refreshing: Promise<StoredTokens> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly key: string;

  /** `key`: the localStorage key of the tokens. `onEnded` runs when the session cannot be renewed (refresh token expired or revoked). */
  constructor(
    key: string,
    private readonly onEnded: () => void,
  ) {
    this.key = key;
    this.tokens = this.read();
    this.schedule();
  }

  get loggedIn() {
    return this.tokens !== null;
  }

  get userName() {
    return this.tokens?.userName ?? '';
  }

  async login(email: string, password: string): Promise<void> {
    const pair = await api<TokenPair>('/auth/login', { body: { email, password } });
    this.save(pair);
  }

  /** Who is logged in and the tenants they work for. */
  me(): Promise<Me> {
    return this.request<Me>('/auth/me');
  }

  /** A valid access token, renewed first when it is about to expire. */
  async accessToken(): Promise<string> {
    const tokens = this.tokens;
    if (!tokens) throw new ApiError(401, 'unauthorized', 'not logged in');
    if (tokens.expiresAt - Date.now() > RENEW_MARGIN_MS / 2) return tokens.accessToken;
    return (await this.renew()).accessToken;
  }

  /** An authenticated API call; a 401 renews the access token and tries once more. */
  async request<T>(path: string, opts: Omit<ApiOptions, 'token'> = {}): Promise<T> {
    try {
      return await api<T>(path, { ...opts, token: await this.accessToken() });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 401) throw err;
      const renewed = await this.renew();
      return api<T>(path, { ...opts, token: renewed.accessToken });
    }
  }

  /** Exchanges the refresh token for a new pair; one exchange at a time (the old refresh token is spent). */
  renew(): Promise<StoredTokens> {
    this.refreshing ??= this.exchange().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  async logout(): Promise<void> {
    const refreshToken = this.tokens?.refreshToken;
    this.clear();
    if (refreshToken) await api('/auth/logout', { body: { refreshToken } }).catch(() => undefined);
  }

  /** Forgets the tokens (the user logs in again). */
  clear() {
    clearTimeout(this.timer);
    this.tokens = null;
    localStorage.removeItem(this.key);
  }

  private async exchange(): Promise<StoredTokens> {
    // Another tab may have renewed already: its pair is the current one.
    const stored = this.read();
    if (stored && this.tokens && stored.refreshToken !== this.tokens.refreshToken && stored.expiresAt - Date.now() > RENEW_MARGIN_MS) {
      this.tokens = stored;
      this.schedule();
      return stored;
    }
    const refreshToken = this.tokens?.refreshToken;
    if (!refreshToken) throw new ApiError(401, 'unauthorized', 'not logged in');
    try {
      const pair = await api<TokenPair>('/auth/refresh', { body: { refreshToken } });
      return this.save(pair);
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 400)) {
        this.clear();
        this.onEnded();
      }
      throw err;
    }
  }

  private save(pair: TokenPair): StoredTokens {
    this.tokens = {
      accessToken: pair.accessToken,
      refreshToken: pair.refreshToken,
      expiresAt: Date.now() + pair.expiresIn * 1000,
      userName: pair.user.name,
    };
    localStorage.setItem(this.key, JSON.stringify(this.tokens));
    this.schedule();
    return this.tokens;
  }

  private read(): StoredTokens | null {
    try {
      const raw = localStorage.getItem(this.key);
      const value = raw ? (JSON.parse(raw) as Partial<StoredTokens>) : null;
      if (value && typeof value.accessToken === 'string' && typeof value.refreshToken === 'string' && typeof value.expiresAt === 'number') {
        return { accessToken: value.accessToken, refreshToken: value.refreshToken, expiresAt: value.expiresAt, userName: value.userName ?? '' };
      }
    } catch {
      // unreadable: log in again
    }
    return null;
  }

  /** Renews a minute before expiry; a failed renewal for lack of network is retried by the next request or join. */
  private schedule() {
    clearTimeout(this.timer);
    if (!this.tokens) return;
    const wait = Math.max(0, this.tokens.expiresAt - Date.now() - RENEW_MARGIN_MS);
    this.timer = setTimeout(() => {
      this.renew().catch(() => {
        // network trouble: retry in 30 s while the session lasts
        if (this.tokens) this.timer = setTimeout(() => this.schedule(), 30_000);
      });
    }, wait);
  }
}
