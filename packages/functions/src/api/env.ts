import type { Principal, OrganizationAccess } from '@svc/core/services/identity';

/** A mutation's audit note, set by the handler and written by the audit middleware. */
export interface AuditNote {
  action: string;
  resource: string;
  metadata?: Record<string, unknown>;
  /** When the mutation created the organization the entry belongs to. */
  organizationId?: string;
  /** A change of the user's own that reaches every organization they act in (an agent signed in as them): one entry in each. */
  organizationIds?: string[];
  userId?: string;
}

export interface ApiEnv {
  Variables: {
    requestId: string;
    principal?: Principal;
    access?: OrganizationAccess;
    audit?: AuditNote;
  };
}
