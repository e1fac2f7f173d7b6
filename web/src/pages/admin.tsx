// Administration (users.manage): users and their roles, the roles' permissions, machine clients (listed; a
// secret is shown once, right after creation), and a link to the malicious-code rules.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, expectData } from '../api.js';
import { Link } from '../router.js';
import { useCan } from '../session.js';
import { Empty, ErrorNotice, formatDate, FormError, Loading, Page } from '../ui.js';

type RoleName = 'admin' | 'editor' | 'viewer';

export function AdminPage() {
  const canManage = useCan('users.manage');
  const users = useQuery({ queryKey: ['users'], queryFn: async () => expectData(await api.GET('/api/v4/users')).users, enabled: canManage });
  const roles = useQuery({ queryKey: ['roles'], queryFn: async () => expectData(await api.GET('/api/v4/roles')).roles, enabled: canManage });
  if (!canManage) return <Empty title="Administration needs the admin role.">Ask an administrator if you need an account or a machine client.</Empty>;
  const roleNames = (roles.data?.map((r) => r.name) ?? ['admin', 'editor', 'viewer']) as RoleName[];
  return (
    <Page title="Administration" actions={<Link href="/admin/rules" className="button">Malicious-code rules</Link>}>
      <section aria-labelledby="users-title">
        <h2 id="users-title">Users</h2>
        {users.error && <ErrorNotice error={users.error} />}
        {users.isLoading && <Loading what="users" />}
        {users.data && (
          <div className="table-wrap" tabIndex={0}><table>
            <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Since</th></tr></thead>
            <tbody>{users.data.map((u) => <tr key={u.id}><th scope="row">{u.email}</th><td>{u.role}</td><td>{u.status}</td><td>{formatDate(u.createTime)}</td></tr>)}</tbody>
          </table></div>
        )}
        <NewUser roles={roleNames} />
      </section>
      <section aria-labelledby="roles-title">
        <h2 id="roles-title">Roles</h2>
        {roles.data && (
          <dl className="details">{roles.data.map((r) => <div key={r.name}><dt>{r.name}</dt><dd>{r.description}<br /><span className="muted">{r.permissions.join(', ')}</span></dd></div>)}</dl>
        )}
      </section>
      <NewClient roles={roleNames} />
    </Page>
  );
}

function NewUser({ roles }: { roles: RoleName[] }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<RoleName>('viewer');
  const queries = useQueryClient();
  const add = useMutation({
    mutationFn: async () => expectData(await api.POST('/api/v4/users', { body: { email, password, role } })),
    onSuccess: async () => {
      setEmail('');
      setPassword('');
      await queries.invalidateQueries({ queryKey: ['users'] });
    },
  });
  const submit = (event: FormEvent) => { event.preventDefault(); add.mutate(); };
  return (
    <form className="inline-form" onSubmit={submit} aria-labelledby="new-user-title">
      <h3 id="new-user-title">Add a user</h3>
      <label>E-mail <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" /></label>
      <label>Initial password <input type="password" required minLength={8} value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" /></label>
      <label>Role <select value={role} onChange={(e) => setRole(e.target.value as RoleName)}>{roles.map((r) => <option key={r}>{r}</option>)}</select></label>
      <button type="submit" className="primary" disabled={add.isPending}>Add user</button>
      {add.error && <FormError error={add.error} />}
      {add.isSuccess && <p role="status">User added.</p>}
    </form>
  );
}

function NewClient({ roles }: { roles: RoleName[] }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<RoleName>('editor');
  const queries = useQueryClient();
  const clients = useQuery({ queryKey: ['clients'], queryFn: async () => expectData(await api.GET('/api/v4/clients')).clients });
  const create = useMutation({
    mutationFn: async () => expectData(await api.POST('/api/v4/clients', { body: { name, role } })),
    onSuccess: async () => {
      setName('');
      await queries.invalidateQueries({ queryKey: ['clients'] });
    },
  });
  const submit = (event: FormEvent) => { event.preventDefault(); create.mutate(); };
  return (
    <section aria-labelledby="clients-title">
      <h2 id="clients-title">Machine clients</h2>
      <p className="muted">For CI pipelines and scripts (client_credentials grant). The secret is shown only once: copy it now.</p>
      {clients.error && <ErrorNotice error={clients.error} />}
      {clients.data && (clients.data.length === 0 ? <p className="muted">No machine client yet.</p> : (
        <div className="table-wrap" tabIndex={0}><table>
          <caption className="sr-only">Machine clients</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">client_id</th><th scope="col">Role</th><th scope="col">Since</th></tr></thead>
          <tbody>{clients.data.map((c) => <tr key={c.clientId}><th scope="row">{c.name}</th><td><code>{c.clientId}</code></td><td>{c.role}</td><td>{formatDate(c.createTime)}</td></tr>)}</tbody>
        </table></div>
      ))}
      <form className="inline-form" onSubmit={submit} aria-label="New machine client">
        <label>Name <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} /></label>
        <label>Role <select value={role} onChange={(e) => setRole(e.target.value as RoleName)}>{roles.map((r) => <option key={r}>{r}</option>)}</select></label>
        <button type="submit" className="primary" disabled={create.isPending}>Create client</button>
      </form>
      {create.error && <FormError error={create.error} />}
      {create.data && (
        <div className="notice ok" role="status">
          <p>Client <strong>{create.data.name}</strong> created ({create.data.role}).</p>
          <dl className="details">
            <div><dt>client_id</dt><dd><code>{create.data.clientId}</code></dd></div>
            <div><dt>client_secret</dt><dd><code className="secret">{create.data.clientSecret}</code> <button type="button" onClick={() => void navigator.clipboard?.writeText(create.data.clientSecret)}>Copy</button></dd></div>
          </dl>
          <p>This secret will not be shown again.</p>
        </div>
      )}
    </section>
  );
}
