/**
 * Row-level security benchmark server, forked twice by bench/rls-run.ts (never on its own: it needs
 * the IPC channel), once on the database whose policies stay on and once on the database where the
 * runner switches them off. Both run this same code: the real app (`buildApp`) on
 * BENCH_DATABASE_URL, migrated and seeded with the demo tenant (`demoApp`), serving only its own
 * routes. It tells the runner the demo admin's token (a real login) and the body of the staff order
 * bench/orders-server.ts measures, priced from the demo menu.
 */
import { answerRunner, demoApp, fail, failed, listenLocal, login } from './lib-server.js';

export const RLS_ADMIN = 'admin@demo.local';

/** The order of bench/orders-server.ts (demo items without modifier groups), by item name. */
const ORDER_LINES: [name: string, quantity: number][] = [['Feijoada completa', 2], ['Guaraná (lata 350 ml)', 3], ['Pudim de leite condensado', 1]];

export interface RlsOrderBody {
  orderType: 'takeout';
  customerName: string;
  items: { menuItem: string; quantity: number }[];
}

export interface RlsReadyMessage {
  type: 'ready';
  appUrl: string;
  token: string;
  tenantId: string;
  /** The request body of `POST /t/demo/orders`. */
  order: RlsOrderBody;
}

async function main() {
  if (!process.send) fail('bench/rls-server.ts is started by bench/rls-run.ts (npm run bench:rls)');
  answerRunner();
  try {
    const { app, password } = await demoApp('ro-bench-rls-');
    const tenant = (await app.deps.tenants.bySlug('demo')) ?? fail('demo tenant missing');

    const res = await app.inject({ url: '/t/demo/menu/items' });
    if (res.statusCode !== 200) fail(`menu listing answered ${res.statusCode}`);
    const idOf = new Map((res.json() as { _id: string; name: string }[]).map((m) => [m.name, m._id]));
    const items = ORDER_LINES.map(([name, quantity]) => ({ menuItem: idOf.get(name) ?? fail(`demo item ${name} missing`), quantity }));

    const token = await login(app, RLS_ADMIN, password);
    const ready: RlsReadyMessage = {
      type: 'ready',
      appUrl: await listenLocal(app),
      token,
      tenantId: tenant.id,
      order: { orderType: 'takeout', customerName: 'Cliente Bench', items },
    };
    process.send!(ready);
  } catch (err) {
    await failed('rls bench server', err);
  }
}

void main();
