/**
 * The menu editor: categories (create, rename, show/hide, reorder by drag and drop or ↑/↓ buttons, saved in
 * the API's `order`), the items of a category (create, edit, availability toggle, modifier groups, recipe
 * lines) and the modifier groups. Branch managers edit categories and items; creating items, the groups
 * and the recipes are the admin's (the API's rules), so those controls are hidden from them.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { formatMoney } from '../../ui/format.js';
import { callAll } from '../../ui/list-page.js';
import { Pager } from '../../ui/Pager.js';
import type { PageProps } from '../../types.js';
import { errorText, Status, useIds } from './common.js';
import { GroupsEditor } from './GroupsEditor.js';
import { ItemForm } from './ItemForm.js';
import { strings as t } from './strings.js';
import type { AdminItem, Category, Group } from './types.js';
import './manager.css';

const PAGE = 20;

export default function MenuPage({ slug, role }: PageProps) {
  const isAdmin = role === 'admin' || role === 'superadmin';
  const path = { slug };
  const [tab, setTab] = useState<'items' | 'groups'>('items');
  const [categories, setCategories] = useState<Category[] | null>(null);
  const [items, setItems] = useState<AdminItem[]>([]);
  const [groups, setGroups] = useState<Group[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [editing, setEditing] = useState<AdminItem | 'new' | null>(null);
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<{ text: string; error?: boolean }>({ text: '' });

  async function load() {
    try {
      const [cats, its, grs] = await Promise.all([
        call(api.GET('/t/{slug}/admin/menu/categories', { params: { path } })),
        callAll((page) => api.GET('/t/{slug}/admin/menu/items', { params: { path, query: { page } } })),
        call(api.GET('/t/{slug}/menu/modifier-groups', { params: { path } })),
      ]);
      const sorted = [...cats].sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
      setCategories(sorted);
      setItems(its);
      setGroups(grs);
      setSelected((s) => (s && sorted.some((c) => c._id === s) ? s : (sorted[0]?._id ?? null)));
    } catch (err) {
      setCategories((c) => c ?? []);
      setStatus({ text: t.loadFailed(errorText(err)), error: true });
    }
  }
  useEffect(() => {
    void load();
  }, [slug]);

  const current = categories?.find((c) => c._id === selected) ?? null;
  const shown = useMemo(
    () => items.filter((i) => i.category === selected && i.isActive).sort((a, b) => a.order - b.order || a.name.localeCompare(b.name)),
    [items, selected],
  );
  const [draggingItem, setDraggingItem] = useState<string | null>(null);

  /** Moves a dish to `index` within its category and saves `order` (10, 20, 30…) for the dishes whose place changed. */
  async function moveItem(id: string, index: number) {
    const renumbered = reorder(shown, id, index);
    if (!renumbered) return;
    const before = items;
    const changed = renumbered.filter((i) => shown.find((o) => o._id === i._id)?.order !== i.order);
    setItems((list) => list.map((i) => renumbered.find((r) => r._id === i._id) ?? i));
    try {
      await Promise.all(changed.map((i) => call(api.PUT('/t/{slug}/menu/items/{id}', { params: { path: { slug, id: i._id } }, body: { order: i.order } }))));
      setStatus({ text: t.saved });
    } catch (err) {
      setItems(before);
      setStatus({ text: t.failed(errorText(err)), error: true });
    }
  }
  const pageItems = shown.slice((page - 1) * PAGE, page * PAGE);

  async function toggleAvailable(item: AdminItem) {
    try {
      const next = await call(api.PUT('/t/{slug}/menu/items/{id}', { params: { path: { slug, id: item._id } }, body: { isAvailable: !item.isAvailable } }));
      setItems((list) => list.map((i) => (i._id === next._id ? next : i)));
    } catch (err) {
      setStatus({ text: t.failed(errorText(err)), error: true });
    }
  }

  function onSaved(item: AdminItem, created: boolean) {
    setItems((list) => (created ? [...list, item] : list.map((i) => (i._id === item._id ? item : i))));
    setSelected(item.category);
    setEditing(item);
    setStatus({ text: created ? t.itemCreated(item.name) : t.saved });
  }

  if (!categories) return <p aria-busy="true">{t.loading}</p>;

  return (
    <section class="mgr">
      <h1>{t.titles.menu}</h1>
      <div class="mgr-tabs" role="tablist" aria-label={t.tabsLabel}>
        {(['items', 'groups'] as const).map((k) => (
          <button
            key={k}
            type="button"
            role="tab"
            id={`menu-tab-${k}`}
            aria-selected={tab === k}
            aria-controls={`menu-panel-${k}`}
            class={`btn${tab === k ? ' primary' : ''}`}
            onClick={() => setTab(k)}
          >
            {k === 'items' ? t.tabItems : t.tabGroups}
          </button>
        ))}
      </div>
      <Status {...status} />
      {tab === 'groups' ? (
        <div role="tabpanel" id="menu-panel-groups" aria-labelledby="menu-tab-groups">
          <GroupsEditor slug={slug} groups={groups} canEdit={isAdmin} onChange={setGroups} />
        </div>
      ) : (
        <div role="tabpanel" id="menu-panel-items" aria-labelledby="menu-tab-items" class="mgr-menu">
          <Categories
            slug={slug}
            categories={categories}
            selected={selected}
            onSelect={(id) => {
              setSelected(id);
              setPage(1);
              setEditing(null);
            }}
            onChange={setCategories}
            onStatus={setStatus}
          />
          <div class="mgr-items">
            {editing ? (
              <ItemForm
                key={editing === 'new' ? 'new' : editing._id}
                slug={slug}
                item={editing === 'new' ? null : editing}
                categories={categories}
                groups={groups}
                defaultCategory={selected}
                canRecipe={isAdmin}
                onSaved={onSaved}
                onClose={() => setEditing(null)}
              />
            ) : (
              <>
                <div class="toolbar">
                  <h2 class="grow">{current ? t.itemsOf(current.name) : t.items}</h2>
                  {isAdmin && categories.length > 0 && (
                    <button type="button" class="btn primary" onClick={() => setEditing('new')}>
                      {t.newItem}
                    </button>
                  )}
                </div>
                {!current ? null : shown.length === 0 ? (
                  <p class="empty">{t.noItems}</p>
                ) : (
                  <>
                    <p class="hint">{t.itemsDragHint}</p>
                    <div class="table-wrap">
                      <table class="data">
                        <thead>
                          <tr>
                            <th scope="col">
                              <span class="sr-only">{t.position}</span>
                            </th>
                            <th scope="col">{t.name}</th>
                            <th scope="col" class="num">
                              {t.price}
                            </th>
                            <th scope="col" class="hide-sm">
                              {t.station}
                            </th>
                            <th scope="col">{t.available}</th>
                            <th scope="col">
                              <span class="sr-only">{t.edit}</span>
                            </th>
                          </tr>
                        </thead>
                        <tbody>
                          {pageItems.map((item) => {
                            const at = shown.indexOf(item);
                            return (
                              <tr
                                key={item._id}
                                draggable
                                class={draggingItem === item._id ? 'dragging' : undefined}
                                data-testid={`item-row-${item.name}`}
                                onDragStart={(e) => {
                                  setDraggingItem(item._id);
                                  e.dataTransfer?.setData('text/plain', item._id);
                                }}
                                onDragEnd={() => setDraggingItem(null)}
                                onDragOver={(e) => e.preventDefault()}
                                onDrop={(e) => {
                                  e.preventDefault();
                                  const id = e.dataTransfer?.getData('text/plain') || draggingItem;
                                  setDraggingItem(null);
                                  if (id) void moveItem(id, at);
                                }}
                              >
                                <td class="nowrap">
                                  <button type="button" class="btn small" aria-label={t.moveUp(item.name)} disabled={at === 0} onClick={() => void moveItem(item._id, at - 1)}>
                                    ↑
                                  </button>
                                  <button
                                    type="button"
                                    class="btn small"
                                    aria-label={t.moveDown(item.name)}
                                    disabled={at === shown.length - 1}
                                    onClick={() => void moveItem(item._id, at + 1)}
                                  >
                                    ↓
                                  </button>
                                </td>
                                <td>{item.name}</td>
                                <td class="num">{formatMoney(item.price)}</td>
                                <td class="hide-sm">{t.stations[item.station]}</td>
                                <td>
                                  <label class="switch">
                                    <input type="checkbox" checked={item.isAvailable} onChange={() => void toggleAvailable(item)} aria-label={t.availability(item.name)} />
                                    <span>{item.isAvailable ? t.available : t.unavailable}</span>
                                  </label>
                                </td>
                                <td>
                                  <button type="button" class="btn small" aria-label={t.editItem(item.name)} onClick={() => setEditing(item)}>
                                    {t.edit}
                                  </button>
                                </td>
                              </tr>
                            );
                          })}
                        </tbody>
                      </table>
                    </div>
                    <Pager page={page} total={shown.length} limit={PAGE} onPage={setPage} />
                  </>
                )}
              </>
            )}
          </div>
        </div>
      )}
    </section>
  );
}

/** `list` with `id` moved to `index` and every `order` renumbered 10, 20, 30…; null when nothing moves. */
function reorder<T extends { _id: string; order: number }>(list: T[], id: string, index: number): T[] | null {
  const from = list.findIndex((x) => x._id === id);
  if (from < 0 || index < 0 || index >= list.length || from === index) return null;
  const next = [...list];
  const [moved] = next.splice(from, 1);
  next.splice(index, 0, moved);
  return next.map((x, i) => ({ ...x, order: (i + 1) * 10 }));
}

function Categories({
  slug,
  categories,
  selected,
  onSelect,
  onChange,
  onStatus,
}: {
  slug: string;
  categories: Category[];
  selected: string | null;
  onSelect: (id: string) => void;
  onChange: (list: Category[]) => void;
  onStatus: (s: { text: string; error?: boolean }) => void;
}) {
  const ids = useIds('newName', 'rename');
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<{ id: string; name: string; error?: string } | null>(null);
  const [dragging, setDragging] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function create(e: Event) {
    e.preventDefault();
    if (!name.trim()) return setNameError(t.required);
    setBusy(true);
    try {
      const order = (categories.at(-1)?.order ?? 0) + 10;
      const created = await call(api.POST('/t/{slug}/menu/categories', { params: { path: { slug } }, body: { name: name.trim(), order } }));
      onChange([...categories, created]);
      onSelect(created._id);
      setName('');
      setNameError(null);
    } catch (err) {
      setNameError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  async function rename(e: Event) {
    e.preventDefault();
    if (!renaming) return;
    if (!renaming.name.trim()) return setRenaming({ ...renaming, error: t.required });
    try {
      const next = await call(api.PUT('/t/{slug}/menu/categories/{id}', { params: { path: { slug, id: renaming.id } }, body: { name: renaming.name.trim() } }));
      onChange(categories.map((c) => (c._id === next._id ? next : c)));
      setRenaming(null);
    } catch (err) {
      setRenaming({ ...renaming, error: errorText(err) });
    }
  }

  async function toggleActive(cat: Category) {
    try {
      const next = await call(api.PUT('/t/{slug}/menu/categories/{id}', { params: { path: { slug, id: cat._id } }, body: { isActive: !cat.isActive } }));
      onChange(categories.map((c) => (c._id === next._id ? next : c)));
    } catch (err) {
      onStatus({ text: t.failed(errorText(err)), error: true });
    }
  }

  /** Moves `id` to `index` and saves `order` (10, 20, 30…) for the categories whose order changed. */
  async function moveTo(id: string, index: number) {
    const renumbered = reorder(categories, id, index);
    if (!renumbered) return;
    onChange(renumbered);
    try {
      const changed = renumbered.filter((c) => categories.find((o) => o._id === c._id)?.order !== c.order);
      await Promise.all(changed.map((c) => call(api.PUT('/t/{slug}/menu/categories/{id}', { params: { path: { slug, id: c._id } }, body: { order: c.order } }))));
      onStatus({ text: t.saved });
    } catch (err) {
      onChange(categories);
      onStatus({ text: t.failed(errorText(err)), error: true });
    }
  }

  return (
    <div class="mgr-cats card">
      <h2>{t.categories}</h2>
      {categories.length === 0 ? <p class="empty">{t.noCategories}</p> : <p class="hint">{t.dragHint}</p>}
      <ol class="cat-list">
        {categories.map((c, i) => (
          <li
            key={c._id}
            draggable
            class={`${c._id === selected ? 'selected' : ''}${dragging === c._id ? ' dragging' : ''}`}
            data-testid={`category-${c.name}`}
            onDragStart={(e) => {
              setDragging(c._id);
              e.dataTransfer?.setData('text/plain', c._id);
            }}
            onDragEnd={() => setDragging(null)}
            onDragOver={(e) => e.preventDefault()}
            onDrop={(e) => {
              e.preventDefault();
              const id = e.dataTransfer?.getData('text/plain') || dragging;
              setDragging(null);
              if (id) void moveTo(id, i);
            }}
          >
            {renaming?.id === c._id ? (
              <form class="cat-rename" onSubmit={rename} noValidate>
                <label for={ids.rename} class="sr-only">
                  {t.categoryName}
                </label>
                <input
                  id={ids.rename}
                  value={renaming.name}
                  aria-invalid={renaming.error ? 'true' : undefined}
                  aria-describedby={renaming.error ? `${ids.rename}-error` : undefined}
                  onInput={(e) => setRenaming({ ...renaming, name: e.currentTarget.value, error: undefined })}
                />
                <button type="submit" class="btn small primary">
                  {t.save}
                </button>
                <button type="button" class="btn small" onClick={() => setRenaming(null)}>
                  {t.cancel}
                </button>
                {renaming.error && (
                  <p class="field-error" id={`${ids.rename}-error`} role="alert">
                    {renaming.error}
                  </p>
                )}
              </form>
            ) : (
              <>
                <button type="button" class="cat-name" aria-current={c._id === selected ? 'true' : undefined} onClick={() => onSelect(c._id)}>
                  {c.name}
                  {!c.isActive && <span class="tag">{t.inactive}</span>}
                </button>
                <span class="cat-actions">
                  <button type="button" class="btn small" aria-label={t.moveUp(c.name)} disabled={i === 0} onClick={() => void moveTo(c._id, i - 1)}>
                    ↑
                  </button>
                  <button
                    type="button"
                    class="btn small"
                    aria-label={t.moveDown(c.name)}
                    disabled={i === categories.length - 1}
                    onClick={() => void moveTo(c._id, i + 1)}
                  >
                    ↓
                  </button>
                  <button type="button" class="btn small" onClick={() => setRenaming({ id: c._id, name: c.name })} aria-label={`${t.rename} ${c.name}`}>
                    {t.rename}
                  </button>
                  <label class="switch small">
                    <input type="checkbox" checked={c.isActive} aria-label={`${t.active}: ${c.name}`} onChange={() => void toggleActive(c)} />
                    <span>{t.active}</span>
                  </label>
                </span>
              </>
            )}
          </li>
        ))}
      </ol>
      <form onSubmit={create} noValidate class="cat-new">
        <div class={`field${nameError ? ' field-invalid' : ''}`}>
          <label for={ids.newName}>{t.newCategory}</label>
          <input
            id={ids.newName}
            value={name}
            maxLength={120}
            aria-invalid={nameError ? 'true' : undefined}
            aria-describedby={nameError ? `${ids.newName}-error` : undefined}
            onInput={(e) => {
              setName(e.currentTarget.value);
              setNameError(null);
            }}
          />
          {nameError && (
            <p class="field-error" id={`${ids.newName}-error`} role="alert">
              {nameError}
            </p>
          )}
        </div>
        <button type="submit" class="btn" disabled={busy}>
          {t.create}
        </button>
      </form>
    </div>
  );
}
