import { readFileSync } from 'node:fs';
import fjs from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
const root = process.argv[2];
const s = await import(root + '/src/modules/orders/orders.schemas.ts');
const order = JSON.parse(readFileSync('/tmp/order.json', 'utf8'));
for (const [label, schema] of [['union', Type.Union([s.CheckoutOrder, s.Order])], ['order', s.Order]] as const) {
  const stringify = fjs(JSON.parse(JSON.stringify(schema)));
  for (let i = 0; i < 20000; i++) stringify(order);
  const t = process.hrtime.bigint();
  const N = 100000;
  for (let i = 0; i < N; i++) stringify(order);
  console.log(root, label, (Number(process.hrtime.bigint() - t) / N / 1000).toFixed(2), 'µs per order');
}
