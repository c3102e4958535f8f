/** Users and roles (admin): the tenant's members, add one with a role and PDV / branch assignments, change, remove. */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { callPage, ShowingOf } from '../../ui/list-page.js';
import type { paths } from '../../api/schema.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDateTime } from '../../ui/format.js';
import { Pager } from '../../ui/Pager.js';
import { Dialog } from './Dialog.js';
import { apiErrors, hasErrors, isEmail, type Errors } from './forms.js';
import { strings as s } from './strings.js';
import './settings.css';

type User = paths['/t/{slug}/users']['get']['responses'][200]['content']['application/json'][number];
type MemberRole = User['role'];
const ROLES: MemberRole[] = ['admin', 'branch_manager', 'staff', 'accountant'];
const LIMIT = 20;

export interface Place {
  branch: { _id: string; name: string };
  pdvs: { _id: string; name: string }[];
}

/** Every branch (up to 100) with its PDVs: what a member may be assigned to. */
export async function loadPlaces(slug: string): Promise<Place[]> {
  const page = await call(api.GET('/api/t/{slug}/admin/branches', { params: { path: { slug }, query: { limit: 100 } } }));
  return Promise.all(
    page.data.map(async (b) => ({
      branch: { _id: b._id, name: b.name },
      pdvs: (await call(api.GET('/api/t/{slug}/admin/branches/{id}/pdvs', { params: { path: { slug, id: b._id } } }))).map((p) => ({ _id: p._id, name: p.name })),
    })),
  );
}

interface FormState {
  name: string;
  email: string;
  password: string;
  role: MemberRole;
  assignedPdvIds: string[];
  assignedBranchIds: string[];
}
const NAMES = ['name', 'email', 'password', 'role', 'assignedPdvIds', 'assignedBranchIds'] as const;

function UserForm({ slug, user, places, onDone, onCancel }: { slug: string; user?: User; places: Place[]; onDone: () => void; onCancel?: () => void }) {
  const blank: FormState = { name: '', email: '', password: '', role: 'staff', assignedPdvIds: [], assignedBranchIds: [] };
  const [f, setF] = useState<FormState>(
    user
      ? { ...blank, name: user.name, email: user.email, role: user.role, assignedPdvIds: user.assignedPdvIds, assignedBranchIds: user.assignedBranchIds }
      : blank,
  );
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [ids] = useState(() => Object.fromEntries(NAMES.map((n) => [n, fieldId(`user-${n}`)])) as Record<(typeof NAMES)[number], string>);

  const toggle = (key: 'assignedPdvIds' | 'assignedBranchIds', id: string, on: boolean) =>
    setF({ ...f, [key]: on ? [...f[key], id] : f[key].filter((x) => x !== id) });

  const submit = async (e: Event) => {
    e.preventDefault();
    const v: Errors = {};
    if (!f.name.trim()) v.name = s.required;
    if (!user) {
      if (!isEmail(f.email)) v.email = s.invalidEmail;
      if (f.password.length < 8) v.password = s.passwordShort;
    } else if (f.password && f.password.length < 8) v.password = s.passwordShort;
    if (f.role === 'staff' && f.assignedPdvIds.length === 0 && places.some((p) => p.pdvs.length)) v.assignedPdvIds = s.choosePdv;
    if (f.role === 'branch_manager' && f.assignedBranchIds.length === 0) v.assignedBranchIds = s.chooseBranch;
    setErrors(v);
    if (hasErrors(v)) return;
    setBusy(true);
    try {
      const assignedPdvIds = f.role === 'staff' ? f.assignedPdvIds : [];
      const assignedBranchIds = f.role === 'branch_manager' ? f.assignedBranchIds : [];
      if (!user) {
        await call(
          api.POST('/t/{slug}/users', {
            params: { path: { slug } },
            body: { name: f.name.trim(), email: f.email.trim(), password: f.password, role: f.role, assignedPdvIds, assignedBranchIds },
          }),
        );
        setF(blank);
      } else {
        const body: Record<string, unknown> = { role: f.role, assignedPdvIds, assignedBranchIds };
        if (f.name.trim() !== user.name) body.name = f.name.trim();
        if (f.password) body.password = f.password;
        await call(api.PUT('/t/{slug}/users/{id}', { params: { path: { slug, id: user._id } }, body }));
      }
      onDone();
    } catch (err) {
      const out = apiErrors(err, NAMES);
      if ((err as { code?: string }).code === 'already_member') out.email = s.alreadyMember;
      setErrors(out);
    } finally {
      setBusy(false);
    }
  };

  const text = (n: 'name' | 'email' | 'password', label: string, type: 'text' | 'email' | 'password', hint?: string) => (
    <Field id={ids[n]} label={label} error={errors[n]} hint={hint}>
      {(p) => (
        <input
          {...p}
          type={type as 'text'}
          autocomplete={n === 'password' ? 'new-password' : n === 'email' ? 'off' : 'name'}
          value={f[n]}
          onInput={(e) => setF({ ...f, [n]: e.currentTarget.value })}
        />
      )}
    </Field>
  );

  return (
    <form onSubmit={submit} noValidate aria-label={user ? s.editUser(user.name) : s.addUser}>
      <div class="row-2">
        {text('name', s.name, 'text')}
        {!user && text('email', s.email, 'email', s.emailExistingHint)}
        {text('password', user ? s.newPassword : s.password, 'password', user ? s.newPasswordHint : s.passwordHint)}
        <Field id={ids.role} label={s.role} error={errors.role}>
          {(p) => (
            <select {...p} value={f.role} onChange={(e) => setF({ ...f, role: e.currentTarget.value as MemberRole })}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {s.roles[r]}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {f.role === 'staff' && (
        <fieldset class="checks" aria-describedby={errors.assignedPdvIds ? `${ids.assignedPdvIds}-error` : undefined}>
          <legend>{s.assignedPdvs}</legend>
          {places.flatMap((pl) =>
            pl.pdvs.map((p) => (
              <label key={p._id} class="check">
                <input type="checkbox" checked={f.assignedPdvIds.includes(p._id)} onChange={(e) => toggle('assignedPdvIds', p._id, e.currentTarget.checked)} />
                {pl.branch.name} · {p.name}
              </label>
            )),
          )}
          {errors.assignedPdvIds && (
            <p class="field-error" id={`${ids.assignedPdvIds}-error`} role="alert">
              {errors.assignedPdvIds}
            </p>
          )}
        </fieldset>
      )}
      {f.role === 'branch_manager' && (
        <fieldset class="checks" aria-describedby={errors.assignedBranchIds ? `${ids.assignedBranchIds}-error` : undefined}>
          <legend>{s.assignedBranches}</legend>
          {places.map((pl) => (
            <label key={pl.branch._id} class="check">
              <input
                type="checkbox"
                checked={f.assignedBranchIds.includes(pl.branch._id)}
                onChange={(e) => toggle('assignedBranchIds', pl.branch._id, e.currentTarget.checked)}
              />
              {pl.branch.name}
            </label>
          ))}
          {errors.assignedBranchIds && (
            <p class="field-error" id={`${ids.assignedBranchIds}-error`} role="alert">
              {errors.assignedBranchIds}
            </p>
          )}
        </fieldset>
      )}
      <div class="form-actions">
        <button type="submit" class="btn primary" disabled={busy}>
          {user ? s.save : s.addUser}
        </button>
        {onCancel && (
          <button type="button" class="btn" onClick={onCancel}>
            {s.cancel}
          </button>
        )}
        {errors._form && (
          <span class="form-error" role="alert">
            {errors._form}
          </span>
        )}
      </div>
    </form>
  );
}

export default function UsersPage({ slug }: PageProps) {
  const [users, setUsers] = useState<User[] | null>(null);
  const [total, setTotal] = useState(0);
  const [places, setPlaces] = useState<Place[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<User | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = () =>
    callPage(api.GET('/t/{slug}/users', { params: { path: { slug } } }))
      .then(({ rows: u, total }) => {
        setTotal(total);
        setUsers(u.sort((a, b) => a.name.localeCompare(b.name, 'pt-BR')));
        setError(null);
      })
      .catch((err) => setError(apiErrors(err, [])._form ?? s.unexpected));
  useEffect(() => {
    void load();
    loadPlaces(slug)
      .then(setPlaces)
      .catch(() => setPlaces([]));
  }, [slug]);

  const placeName = (u: User) => {
    const names: string[] = [];
    for (const pl of places) {
      if (u.assignedBranchIds.includes(pl.branch._id)) names.push(pl.branch.name);
      for (const p of pl.pdvs) if (u.assignedPdvIds.includes(p._id)) names.push(`${pl.branch.name} · ${p.name}`);
    }
    return names.join(', ') || '—';
  };

  const remove = async (u: User) => {
    if (!confirm(s.removeConfirm(u.name))) return;
    try {
      await call(api.DELETE('/t/{slug}/users/{id}', { params: { path: { slug, id: u._id } } }));
      setNotice(s.removed(u.name));
      await load();
    } catch (err) {
      setError(apiErrors(err, [])._form ?? s.unexpected);
    }
  };

  const shown = (users ?? []).slice((page - 1) * LIMIT, page * LIMIT);
  return (
    <>
      <h1>{s.usersTitle}</h1>
      <div class="toolbar">
        <button type="button" class="btn primary" aria-expanded={adding} onClick={() => setAdding(!adding)}>
          {s.addUser}
        </button>
      </div>
      {adding && (
        <section class="card" aria-labelledby="add-user-heading">
          <h2 id="add-user-heading">{s.addUser}</h2>
          <UserForm
            slug={slug}
            places={places}
            onCancel={() => setAdding(false)}
            onDone={() => {
              setAdding(false);
              setNotice(s.userAdded);
              void load();
            }}
          />
        </section>
      )}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {users === null ? (
        <p aria-busy="true">{s.loading}</p>
      ) : users.length === 0 ? (
        <p class="empty">{s.noUsers}</p>
      ) : (
        <div class="table-wrap">
          <table class="data" data-testid="users">
            <caption class="sr-only">{s.usersTitle}</caption>
            <thead>
              <tr>
                <th scope="col">{s.name}</th>
                <th scope="col">{s.email}</th>
                <th scope="col">{s.role}</th>
                <th scope="col">{s.assignments}</th>
                <th scope="col">{s.since}</th>
                <th scope="col">
                  <span class="sr-only">{s.actions}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((u) => (
                <tr key={u._id}>
                  <td>{u.name}</td>
                  <td>{u.email}</td>
                  <td>{s.roles[u.role]}</td>
                  <td>{placeName(u)}</td>
                  <td>{formatDateTime(u.createdAt)}</td>
                  <td class="actions-cell">
                    <button type="button" class="btn small" aria-label={s.editUser(u.name)} onClick={() => setEditing(u)}>
                      {s.edit}
                    </button>
                    <button type="button" class="btn small danger" aria-label={s.removeUser(u.name)} onClick={() => void remove(u)}>
                      {s.remove}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} total={users?.length ?? 0} limit={LIMIT} onPage={setPage} />
      <ShowingOf shown={users?.length ?? 0} total={total} />
      <Dialog open={editing !== null} title={editing ? s.editUser(editing.name) : ''} onClose={() => setEditing(null)}>
        {editing && (
          <UserForm
            key={editing._id}
            slug={slug}
            user={editing}
            places={places}
            onCancel={() => setEditing(null)}
            onDone={() => {
              setEditing(null);
              setNotice(s.userSaved);
              void load();
            }}
          />
        )}
      </Dialog>
    </>
  );
}
