/**
 * Demand forecasting over one menu item's daily sales (docs/decisions.md, "Purchasing: demand prediction").
 * Pure functions, no database: a series is the units sold per consecutive local day, oldest first, the
 * last element being yesterday; days without a sale are 0. A series starts at the item's first sale in
 * the period read (a new dish has a short history, not weeks of zeros).
 */

/** Days of the weighted moving average: the last 28, linearly weighted (yesterday 28, four weeks ago 1). */
export const WMA_WINDOW = 28;
/** Weeks of the weekday method: a day is the average of the same weekday in the last 4 weeks. */
export const WEEKDAY_WEEKS = 4;
/** Days of the backtest: each of the last 28 days is forecast from the days before it (one step ahead). */
export const BACKTEST_DAYS = 28;
/** Days read to forecast: the backtest's 28 days and the 28 days of history the first of them needs. */
export const HISTORY_DAYS = BACKTEST_DAYS + WMA_WINDOW;
/** Confidence is min(1, data points / 21). */
export const FULL_CONFIDENCE_POINTS = 21;
/** Trend: the last 7 days against the 7 before; more than 10 % up is `up`, more than 10 % down `down`. */
export const TREND_THRESHOLD_PERCENT = 10;

export const FORECAST_METHODS = ['wma', 'weekday'] as const;
export type ForecastMethod = (typeof FORECAST_METHODS)[number];
export const TRENDS = ['up', 'down', 'stable'] as const;
export type Trend = (typeof TRENDS)[number];

const round = (value: number, decimals: number) => {
  const f = 10 ** decimals;
  return Math.round((value + Number.EPSILON * Math.sign(value)) * f) / f;
};
/** To the thousandth (API numbers have at most 3 decimals). */
export const round3 = (value: number) => round(value, 3);

/**
 * Weighted moving average of the days before position `end` (exclusive): the last `WMA_WINDOW` of them (fewer
 * when the series is shorter), weights 1 (oldest) to m (the most recent). Null with no day before `end`.
 */
export function wmaAt(series: readonly number[], end: number = series.length): number | null {
  const from = Math.max(0, end - WMA_WINDOW);
  let sum = 0;
  let weights = 0;
  for (let i = from; i < end; i++) {
    const w = i - from + 1;
    sum += w * series[i];
    weights += w;
  }
  return weights === 0 ? null : sum / weights;
}

/** Mean of the same weekday in the `WEEKDAY_WEEKS` weeks before position `day` (7, 14, 21, 28 days earlier, those in the series). */
export function weekdayAt(series: readonly number[], day: number): number | null {
  let sum = 0;
  let n = 0;
  for (let k = 1; k <= WEEKDAY_WEEKS; k++) {
    const i = day - 7 * k;
    if (i >= 0 && i < series.length) {
      sum += series[i];
      n++;
    }
  }
  return n === 0 ? null : sum / n;
}

export interface Backtest {
  /** Mean absolute percentage error of each method, in percent (2 decimals); null when no day could be scored. */
  wma: number | null;
  weekday: number | null;
  /** The days scored. */
  days: number;
}

/** The backtest's sums, unrounded (the choice between the methods compares these). */
function score(series: readonly number[]) {
  let wma = 0;
  let weekday = 0;
  let days = 0;
  for (let t = Math.max(0, series.length - BACKTEST_DAYS); t < series.length; t++) {
    const actual = series[t];
    const w = wmaAt(series, t);
    const d = weekdayAt(series, t);
    if (actual <= 0 || w === null || d === null) continue;
    wma += Math.abs(actual - w) / actual;
    weekday += Math.abs(actual - d) / actual;
    days++;
  }
  return days === 0 ? null : { wma: (wma / days) * 100, weekday: (weekday / days) * 100, days };
}

/**
 * One-step-ahead backtest over the last `BACKTEST_DAYS` days of the series: each day is forecast by both methods
 * from the days before it, and scored when it sold something (a percentage error of a zero is undefined) and
 * both methods have a forecast (a same weekday before it: at least 7 days of history). MAPE = mean of
 * |actual - forecast| / actual x 100 over the same days for both methods. For scripts too (pure).
 */
export function backtest(series: readonly number[]): Backtest {
  const s = score(series);
  return s ? { wma: round(s.wma, 2), weekday: round(s.weekday, 2), days: s.days } : { wma: null, weekday: null, days: 0 };
}

/** The last 7 days against the 7 before: `up` above +10 %, `down` below -10 %, else `stable` (and with under 14 days). */
export function trendOf(series: readonly number[]): Trend {
  const n = series.length;
  if (n < 14) return 'stable';
  const sum = (from: number, to: number) => series.slice(from, to).reduce((a, b) => a + b, 0);
  const last = sum(n - 7, n);
  const before = sum(n - 14, n - 7);
  // Compared as last x 100 against before x (100 ± 10), so the boundary (exactly 10 %) is stable.
  if (last * 100 > before * (100 + TREND_THRESHOLD_PERCENT)) return 'up';
  if (last * 100 < before * (100 - TREND_THRESHOLD_PERCENT)) return 'down';
  return 'stable';
}

export interface Forecast {
  /** Units per day the chosen method expects over the horizon (predicted / horizon), 3 decimals. */
  avgDaily: number;
  /** Units over the horizon, 3 decimals. */
  predicted: number;
  /** min(1, data points / 21), data points being the days of the series in the average's 28-day window; 3 decimals. */
  confidence: number;
  dataPoints: number;
  trend: Trend;
  method: ForecastMethod;
  mape: { wma: number | null; weekday: number | null };
}

/**
 * The forecast of a series for the next `horizon` days. The weighted moving average (spec) predicts
 * avgDaily x horizon; the weekday method predicts each coming day as the mean of its weekday in the last 4
 * weeks and sums them. The weekday method is used when its backtest MAPE is strictly lower; otherwise (and
 * when nothing could be backtested) the moving average.
 */
export function forecast(series: readonly number[], horizon: number): Forecast {
  const n = series.length;
  const wma = wmaAt(series) ?? 0;
  const exact = score(series);
  const useWeekday = exact !== null && exact.weekday < exact.wma;
  let total: number;
  if (useWeekday) {
    total = 0;
    for (let h = 1; h <= horizon; h++) total += weekdayAt(series, n - 1 + (((h - 1) % 7) + 1)) ?? 0;
  } else {
    total = wma * horizon;
  }
  const dataPoints = Math.min(n, WMA_WINDOW);
  return {
    avgDaily: round3(useWeekday ? total / horizon : wma),
    predicted: round3(total),
    confidence: round3(Math.min(1, dataPoints / FULL_CONFIDENCE_POINTS)),
    dataPoints,
    trend: trendOf(series),
    method: useWeekday ? 'weekday' : 'wma',
    mape: { wma: exact && round(exact.wma, 2), weekday: exact && round(exact.weekday, 2) },
  };
}
