/** One order on the board: its lines for the station, time since it was placed, bump and recall. */
import {
  elapsedMinutes,
  expectedMinutes,
  lateness,
  linesFor,
  nextStatus,
  previousStatus,
  type BoardStatus,
  type KitchenLine,
  type KitchenOrder,
  type Station,
} from './board.js';
import { strings as t } from './strings.js';

const quantity = (line: KitchenLine) =>
  line.unit === 'kg' ? `${line.quantity.toLocaleString('pt-BR', { minimumFractionDigits: 3 })} kg` : `${line.quantity}×`;

export interface CardProps {
  order: KitchenOrder;
  /** The number of the order's table, when the tables list knows it. */
  tableNumber?: number;
  status: BoardStatus;
  station: Station;
  now: number;
  busy: boolean;
  onMove: (order: KitchenOrder, to: string) => void;
}

export function OrderCard({ order, tableNumber, status, station, now, busy, onMove }: CardProps) {
  const lines = linesFor(order, station);
  const expected = expectedMinutes(lines);
  const elapsed = elapsedMinutes(order.createdAt, now);
  const level = lateness(elapsed, expected);
  const next = nextStatus(status);
  const back = previousStatus(status);
  const bumpText = t.bump[status];
  const where = tableNumber !== undefined ? t.table(tableNumber) : order.type === 'takeout' ? t.takeout : t.dineIn;

  return (
    <li
      class={`card card-${level}`}
      data-testid="order-card"
      data-order-number={order.orderNumber}
      data-order-id={order._id}
      data-status={order.status}
      aria-labelledby={`order-${order._id}`}
    >
      <div class="card-head">
        <h3 id={`order-${order._id}`} class="card-number">
          {t.order(order.orderNumber)}
        </h3>
        <span class="card-where">{where}</span>
      </div>
      {order.customerName && <p class="card-customer">{order.customerName}</p>}
      <p class={`card-time time-${level}`}>
        <span aria-hidden="true">{level === 'late' ? '⚠ ' : level === 'warning' ? '◔ ' : ''}</span>
        {level === 'late' && <strong>{t.late}: </strong>}
        {level === 'warning' && <strong>{t.almostLate}: </strong>}
        {t.elapsed(elapsed, expected)}
      </p>
      <ul class="card-lines">
        {lines.map((line, i) => (
          <li key={i} class="line">
            <span class="line-qty">{quantity(line)}</span> <span class="line-name">{line.name}</span>
            {line.modifiers?.map((m) =>
              m.options.length ? (
                <div class="line-mod" key={m.groupName}>
                  {m.groupName}: {m.options.map((o) => o.name).join(', ')}
                </div>
              ) : null,
            )}
            {line.notes && (
              <div class="line-notes">
                <strong>{t.notes}</strong> {line.notes}
              </div>
            )}
            {line.allergens && line.allergens.length > 0 && (
              <div class="line-allergens">
                <strong>{t.allergens}:</strong> {line.allergens.join(', ')}
              </div>
            )}
          </li>
        ))}
      </ul>
      <div class="card-actions">
        {back && (
          <button
            type="button"
            class="btn btn-recall"
            data-testid="recall"
            disabled={busy}
            aria-label={t.recallLabel(order.orderNumber, t.columns[back])}
            onClick={() => onMove(order, back)}
          >
            ↶ {t.recall}
          </button>
        )}
        <button
          type="button"
          class="btn btn-primary btn-bump"
          data-testid="bump"
          disabled={busy}
          aria-label={t.bumpLabel(order.orderNumber, bumpText)}
          onClick={() => onMove(order, next)}
        >
          {busy ? t.moving : `${bumpText} →`}
        </button>
      </div>
    </li>
  );
}
