/**
 * Lists the API pages (issue 20): `page` and `limit` in the query, the number of matching rows in `X-Total-Count`.
 * `callPage` reads both; `ShowingOf` tells the reader a list was cut at the API's maximum ("Mostrando 500 de 812").
 */
import { call } from '../api/client.js';

/** The rows of an openapi-fetch list answer and the total from `X-Total-Count` (the rows' count when absent). */
export async function callPage<T>(promise: Promise<{ data?: T[]; error?: unknown; response: Response }>): Promise<{ rows: T[]; total: number }> {
  let response: Response | undefined;
  const rows = await call(
    promise.then((r) => {
      response = r.response;
      return r;
    }),
  );
  const header = response?.headers.get('x-total-count');
  const total = header == null ? NaN : Number(header);
  return { rows, total: Number.isFinite(total) ? total : rows.length };
}

/** A line under a list the API truncated; nothing when every row is shown. */
export function ShowingOf({ shown, total }: { shown: number; total: number }) {
  if (total <= shown) return null;
  return (
    <p class="hint" role="status" data-testid="showing-of">
      Mostrando {shown} de {total}
    </p>
  );
}

/**
 * Every row of a list, page after page (at most `maxPages` requests): for pickers and lookups that need the whole
 * catalog (an item by id, the items of a form), where a cut list would hide a row.
 */
export async function callAll<T>(
  fetchPage: (page: number) => Promise<{ data?: T[]; error?: unknown; response: Response }>,
  maxPages = 20,
): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const { rows, total } = await callPage(fetchPage(page));
    out.push(...rows);
    if (rows.length === 0 || out.length >= total) break;
  }
  return out;
}
