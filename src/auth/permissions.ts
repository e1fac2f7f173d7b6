// Roles inside an organisation and the permissions they grant. Every route declares one permission.
import type { Role } from '../store/schema.js';

export const ROLES: Role[] = ['admin', 'editor', 'viewer'];

export const PERMISSIONS = [
  'products.view', 'products.create', 'products.update',
  'images.view', 'images.create', 'images.update',
  'scans.view', 'scans.create', 'scans.update',
  'findings.view', 'findings.update',
  'reports.view',
  'users.view', 'users.manage', 'clients.manage',
  'rules.view', 'rules.manage',
  'webhooks.manage',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const VIEW: Permission[] = ['products.view', 'images.view', 'scans.view', 'findings.view', 'reports.view', 'users.view', 'rules.view'];
const EDIT: Permission[] = [
  ...VIEW, 'products.create', 'products.update', 'images.create', 'images.update', 'scans.create', 'scans.update', 'findings.update',
];

export const ROLE_PERMISSIONS: Record<Role, Permission[]> = {
  viewer: VIEW,
  editor: EDIT,
  admin: [...PERMISSIONS],
};

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  admin: 'Everything, including users, machine clients, malicious-code rules and webhooks of the organisation',
  editor: 'Products, images, scans and finding status',
  viewer: 'Read everything in the organisation',
};

export function roleAllows(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

export function isRole(value: string): value is Role {
  return (ROLES as string[]).includes(value);
}
