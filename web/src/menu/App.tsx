/**
 * The customer menu page at `/t/:slug/b/:pdvSlug/menu?table=N`: the menu, the item sheet, the cart,
 * checkout, then the PIX payment and live tracking. The placed order is kept in sessionStorage so a
 * reload comes back to its tracking; the cart too, so a reload keeps it.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../shared/api.js';
import { formatMoney } from '../shared/money.js';
import { groupsOf, lineTotal, unitPrice, type CartLine, type Choices } from './cart.js';
import { Checkout } from './Checkout.js';
import { brandColors } from './color.js';
import { ItemSheet } from './ItemSheet.js';
import { OrderView, type PlacedOrder } from './OrderView.js';
import { strings as t } from './strings.js';
import type { Category, CheckoutOrder, MenuItem, ModifierGroup, Storefront } from './types.js';

export interface Route {
  slug: string;
  pdvSlug: string;
  table: number | null;
}

/** Reads the page URL: `/t/:slug/b/:pdvSlug/menu?table=N`. */
export function parseRoute(loc: Location): Route | null {
  const m = /^\/t\/([^/]+)\/b\/([^/]+)\/menu\/?$/.exec(loc.pathname);
  if (!m) return null;
  const table = Number(new URLSearchParams(loc.search).get('table'));
  return { slug: decodeURIComponent(m[1]), pdvSlug: decodeURIComponent(m[2]), table: Number.isInteger(table) && table > 0 ? table : null };
}

interface Data {
  store: Storefront;
  categories: Category[];
  items: MenuItem[];
  groups: Map<string, ModifierGroup>;
}

type View = 'menu' | 'cart' | 'checkout' | 'order';

function load<T>(key: string): T | null {
  try {
    const raw = sessionStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}
function save(key: string, value: unknown) {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // private mode or full storage: the page still works, without surviving a reload
  }
}

export function App({ route }: { route: Route }) {
  const { slug, pdvSlug, table } = route;
  const orderKey = `menu-order:${slug}:${pdvSlug}`;
  const cartKey = `menu-cart:${slug}:${pdvSlug}`;
  const [data, setData] = useState<Data | null>(null);
  const [error, setError] = useState<'notFound' | 'failed' | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [cart, setCart] = useState<CartLine[]>(() => load<CartLine[]>(cartKey) ?? []);
  const [placed, setPlaced] = useState<PlacedOrder | null>(() => load<PlacedOrder>(orderKey));
  const [view, setView] = useState<View>(placed ? 'order' : 'menu');
  const [sheet, setSheet] = useState<{ item: MenuItem; line?: CartLine } | null>(null);
  const nextKey = useRef(Date.now());

  useEffect(() => {
    const base = `/t/${encodeURIComponent(slug)}`;
    const query = new URLSearchParams({ pdv: pdvSlug, ...(table ? { table: String(table) } : {}) });
    setError(null);
    Promise.all([
      api<Storefront>(`${base}/storefront?${query}`),
      api<Category[]>(`${base}/menu/categories`),
      api<MenuItem[]>(`${base}/menu/items`),
      api<ModifierGroup[]>(`${base}/menu/modifier-groups`),
    ])
      .then(([store, categories, items, groups]) => {
        setData({ store, categories: [...categories].sort((a, b) => a.order - b.order), items, groups: new Map(groups.map((g) => [g._id, g])) });
        document.title = `${store.tenant.name} · ${store.pdv?.name ?? ''}`.replace(/ · $/, '');
      })
      .catch((err: unknown) => setError(err instanceof ApiError && (err.status === 404 || err.status === 403) ? 'notFound' : 'failed'));
  }, [slug, pdvSlug, table, attempt]);

  useEffect(() => save(cartKey, cart), [cart]);
  useEffect(() => save(orderKey, placed), [placed]);
  useEffect(() => window.scrollTo(0, 0), [view]);

  // The brand colour on the whole page (CSS variables set through the CSSOM: allowed by the CSP).
  useEffect(() => {
    const { brand, onBrand } = brandColors(data?.store.tenant.primaryColor);
    document.documentElement.style.setProperty('--brand', brand);
    document.documentElement.style.setProperty('--on-brand', onBrand);
    document.querySelector('meta[name="theme-color"]')?.setAttribute('content', brand);
  }, [data]);

  const priced = useMemo(
    () => (data ? cart.map((l) => ({ line: l, total: lineTotal(unitPrice(l.item, groupsOf(l.item, data.groups), l.choices), l.quantity) })) : []),
    [cart, data],
  );
  const subtotal = priced.reduce((sum, p) => sum + p.total, 0);
  const count = cart.reduce((n, l) => n + (l.item.unit === 'kg' ? 1 : l.quantity), 0);

  if (error) {
    return (
      <main class="center">
        <p role="alert">{error === 'notFound' ? t.notFound : t.loadFailed}</p>
        {error === 'failed' && <button type="button" class="primary" onClick={() => setAttempt((a) => a + 1)}>{t.retry}</button>}
      </main>
    );
  }
  if (!data) return <main class="center"><p role="status">{t.loading}</p></main>;

  const { store } = data;
  const saveLine = (value: { quantity: number; notes: string; choices: Choices }) => {
    if (!sheet) return;
    const { item, line } = sheet;
    setCart((c) => (line ? c.map((l) => (l.key === line.key ? { ...l, ...value } : l)) : [...c, { key: String(nextKey.current++), item, ...value }]));
    setSheet(null);
  };
  const placedOrder = (order: CheckoutOrder) => {
    setPlaced({
      orderNumber: order.orderNumber,
      paymentMethod: order.paymentMethod,
      pixPayload: order.pixPayload,
      pixQrCodeBase64: order.pixQrCodeBase64,
      total: order.total,
      status: order.status,
      paymentStatus: order.paymentStatus,
    });
    setCart([]);
    setView('order');
  };

  return (
    <>
      <header class="top">
        <h1>{store.tenant.name}</h1>
        <p class="sub">
          {store.pdv?.name}
          {store.table && <span class="pill">{t.table(store.table.number)}</span>}
        </p>
      </header>
      <main>
        {view === 'menu' && <MenuList data={data} onAdd={(item) => setSheet({ item })} />}
        {view === 'cart' && (
          <CartView
            lines={priced}
            subtotal={subtotal}
            onEdit={(line) => setSheet({ item: line.item, line })}
            onRemove={(key) => setCart((c) => c.filter((l) => l.key !== key))}
            onBack={() => setView('menu')}
            onCheckout={() => setView('checkout')}
          />
        )}
        {view === 'checkout' && (
          <Checkout slug={slug} pdvSlug={pdvSlug} store={store} lines={cart} subtotal={subtotal} onBack={() => setView('cart')} onPlaced={placedOrder} />
        )}
        {view === 'order' && placed && (
          <OrderView slug={slug} placed={placed} onNewOrder={() => {
            setPlaced(null);
            setView('menu');
          }} />
        )}
      </main>
      {view === 'menu' && cart.length > 0 && (
        <div class="cart-bar">
          <button type="button" class="primary wide" data-testid="open-cart" onClick={() => setView('cart')}>
            <span class="count" aria-hidden="true">{count}</span>
            {t.openCart(count, formatMoney(subtotal))}
          </button>
        </div>
      )}
      {sheet && <ItemSheet item={sheet.item} groups={groupsOf(sheet.item, data.groups)} line={sheet.line} onSave={saveLine} onClose={() => setSheet(null)} />}
    </>
  );
}

function MenuList({ data, onAdd }: { data: Data; onAdd: (item: MenuItem) => void }) {
  const sections = useMemo(() => {
    const known = new Set(data.categories.map((c) => c._id));
    const list = data.categories.map((c) => ({ id: c._id, name: c.name, items: data.items.filter((i) => i.category === c._id) }));
    const other = data.items.filter((i) => !known.has(i.category));
    if (other.length) list.push({ id: 'other', name: t.otherCategory, items: other });
    return list.filter((s) => s.items.length > 0);
  }, [data]);

  if (sections.length === 0) return <p class="center">{t.emptyMenu}</p>;
  return (
    <>
      <nav class="tabs" aria-label={t.categoriesLabel}>
        {sections.map((s) => <a key={s.id} href={`#cat-${s.id}`}>{s.name}</a>)}
      </nav>
      {sections.map((s) => (
        <section key={s.id} id={`cat-${s.id}`} class="category" aria-labelledby={`cat-h-${s.id}`}>
          <h2 id={`cat-h-${s.id}`}>{s.name}</h2>
          {s.items.map((item) => (
            <article class="item" key={item._id} data-testid="item" data-name={item.name}>
              <div class="item-text">
                <h3>{item.name}</h3>
                {item.description && <p class="muted">{item.description}</p>}
                {item.allergens.length > 0 && <p class="allergens">{t.allergens}: {item.allergens.join(', ')}</p>}
                <p class="price">{formatMoney(item.price)}{item.unit === 'kg' ? t.perKg : ''}</p>
              </div>
              <button type="button" class="add" data-testid="add-item" aria-label={t.addNamed(item.name)} onClick={() => onAdd(item)}>+</button>
            </article>
          ))}
        </section>
      ))}
    </>
  );
}

interface CartProps {
  lines: { line: CartLine; total: number }[];
  subtotal: number;
  onEdit: (line: CartLine) => void;
  onRemove: (key: string) => void;
  onBack: () => void;
  onCheckout: () => void;
}

function CartView({ lines, subtotal, onEdit, onRemove, onBack, onCheckout }: CartProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="page">
      <button type="button" class="link" onClick={onBack}>← {t.backToMenu}</button>
      <h2 tabIndex={-1} ref={heading}>{t.cart}</h2>
      {lines.length === 0 && <p>{t.cartEmpty}</p>}
      <ul class="cart-lines">
        {lines.map(({ line, total }) => {
          const picked = Object.values(line.choices).flat();
          return (
            <li key={line.key}>
              <div class="line-main">
                <span>{line.quantity.toLocaleString('pt-BR')} × {line.item.name}</span>
                <span>{formatMoney(total)}</span>
              </div>
              {picked.length > 0 && <p class="muted small">{picked.join(', ')}</p>}
              {line.notes && <p class="muted small">{t.notes}: {line.notes}</p>}
              <div class="line-actions">
                <button type="button" class="link" onClick={() => onEdit(line)}>{t.edit}</button>
                <button type="button" class="link danger" onClick={() => onRemove(line.key)}>{t.remove}</button>
              </div>
            </li>
          );
        })}
      </ul>
      <dl class="totals">
        <div class="grand"><dt>{t.subtotal}</dt><dd>{formatMoney(subtotal)}</dd></div>
      </dl>
      <button type="button" class="primary wide" data-testid="checkout" disabled={lines.length === 0} onClick={onCheckout}>{t.checkout}</button>
    </section>
  );
}
