/** Files the panel downloads (PDF, XML, SPED, ZIP): fetched with the session's token, saved through a blob link. */
import { ApiError } from '../../shared/api.js';
import { session } from '../session.js';

function fileNameOf(res: Response, fallback: string) {
  const m = /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '');
  return m?.[1] ?? fallback;
}

/**
 * Downloads `url` (same origin) and saves it: under the name the answer gives (`Content-Disposition`), else
 * `name`; with `serverName: false` always as `name`. `auth: false` for signed links. An error answer throws
 * ApiError. Answers the name saved.
 */
export async function download(url: string, name: string, { auth = true, serverName = true } = {}): Promise<string> {
  const headers: Record<string, string> = {};
  if (auth) headers.authorization = `Bearer ${await session.accessToken()}`;
  const res = await fetch(url, { headers });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
    throw new ApiError(res.status, body.code ?? 'http_error', body.message ?? res.statusText);
  }
  const saved = serverName ? fileNameOf(res, name) : name;
  const href = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = saved;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
  return saved;
}
