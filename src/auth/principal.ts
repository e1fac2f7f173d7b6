// Who is calling: the verified token's subject, its organisation and its role.
import type { Role } from '../store/schema.js';

export interface Principal {
  userId: string;
  orgId: string;
  email: string;
  role: Role;
  kind: 'user' | 'client';
}
