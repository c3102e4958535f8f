/** Small pieces shared by the books pages: months, money in units, file downloads with the token, error notes. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { formatMoney, today } from '../../ui/format.js';
import { s } from './strings.js';
import './books.css';

/** The API's accounting amounts are currency units (12.34); the panel formats cents. */
export const money = (units: number) => formatMoney(Math.round(units * 100));

export interface YearMonth {
  year: number;
  month: number;
}

/** `YYYY-MM` of the month `back` months before the tenant's today. */
export function monthBefore(back: number): string {
  const d = new Date(`${today().slice(0, 7)}-01T12:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - back);
  return d.toISOString().slice(0, 7);
}

export const parseMonth = (ym: string): YearMonth => ({ year: Number(ym.slice(0, 4)), month: Number(ym.slice(5, 7)) });
export const monthLabel = ({ year, month }: YearMonth) =>
  new Intl.DateTimeFormat('pt-BR', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(Date.UTC(year, month - 1, 15)));
export const firstDay = (ym: string) => `${ym}-01`;
export function lastDay(ym: string): string {
  const { year, month } = parseMonth(ym);
  return new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
}

/** An API failure as a sentence for the page. */
export const errorText = (err: unknown) => {
  if (!(err instanceof ApiError)) return s.failed;
  return s.codes[err.code as keyof typeof s.codes] ?? (err.message || s.failed);
};

/** The file name of a `Content-Disposition: attachment; filename="..."`. */
export { download } from '../../ui/download.js';

/** Loads with `load` whenever `deps` change: `{ data, error, loading, reload }`. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    setError(null);
    load()
      .then((d) => live && setData(d))
      .catch((e) => live && setError(errorText(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data, error, loading, reload: () => setTick((n) => n + 1) };
}

export function Status({ value }: { value: string }) {
  return <span class={`books-status ${value}`}>{s.status[value as keyof typeof s.status] ?? value}</span>;
}

export function Loading({ loading, error }: { loading: boolean; error: string | null }) {
  if (error) return <p class="form-error" role="alert">{error}</p>;
  if (loading) return <p aria-busy="true">{s.loading}</p>;
  return null;
}
