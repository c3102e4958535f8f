/**
 * A bar chart in SVG, with its numbers as a table for screen readers (the chart itself is `aria-hidden`):
 * sales by hour, by payment method, DRE lines. Values are numbers; `format` writes them (money, counts).
 *
 *   <BarChart title="Vendas por hora" bars={[{ label: '12h', value: 45000 }]} format={formatMoney} />
 */
export interface Bar {
  label: string;
  value: number;
}

export function BarChart({ title, bars, format = String, height = 180 }: { title: string; bars: Bar[]; format?: (v: number) => string; height?: number }) {
  const max = Math.max(1, ...bars.map((b) => Math.abs(b.value)));
  const width = Math.max(280, bars.length * 44);
  const slot = width / Math.max(1, bars.length);
  const plot = height - 34;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {bars.length === 0 ? null : (
        // Scaled as a whole (never stretched: the labels keep their shape), at most its natural width.
        <svg viewBox={`0 0 ${width} ${height}`} role="presentation" aria-hidden="true" style={{ width: '100%', maxWidth: `${width * 1.6}px`, height: 'auto' }}>
          {bars.map((b, i) => {
            const h = Math.round((Math.abs(b.value) / max) * (plot - 4));
            const x = i * slot + slot * 0.15;
            return (
              <g key={b.label}>
                <rect x={x} y={plot - h} width={slot * 0.7} height={h} rx={3} class={b.value < 0 ? 'bar-negative' : 'bar'} />
                <text x={i * slot + slot / 2} y={height - 12} text-anchor="middle" class="chart-label">
                  {b.label}
                </text>
              </g>
            );
          })}
        </svg>
      )}
      <table class="sr-only">
        <caption>{title}</caption>
        <tbody>
          {bars.map((b) => (
            <tr key={b.label}>
              <th scope="row">{b.label}</th>
              <td>{format(b.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
