// The one Database interface of the service: core tables (this file) plus the vulnerability database tables.
// Portable column types only: text (ISO 8601 times, JSON documents), integer (booleans as 0/1), double precision.
import type { VulnTables } from './vulns.schema.js';

export type Role = 'admin' | 'editor' | 'viewer';

export interface OrganisationsTable {
  id: string;
  name: string;
  create_time: string;
}

/** People and machine clients' service accounts (kind 'client'), so every author is a user row. */
export interface UsersTable {
  id: string;
  org_id: string;
  email: string;
  kind: 'user' | 'client';
  role: Role;
  /** argon2id hash; null for service accounts, which sign in with their client secret. */
  password_hash: string | null;
  status: 'active' | 'disabled';
  create_time: string;
}

export interface ClientsTable {
  id: string;
  client_id: string;
  name: string;
  org_id: string;
  /** The service-account user that authors what this client creates. */
  user_id: string;
  secret_hash: string;
  role: Role;
  create_time: string;
}

/** RS256 signing keys of the built-in identity provider (JWK JSON). */
export interface SigningKeysTable {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  create_time: string;
}

/** An external issuer's subject bound to the local user it signs in as (never matched by e-mail). */
export interface ExternalIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  create_time: string;
}

/** Failed password sign-ins of one account name (lower-cased e-mail, known or not): delays and locks. */
export interface SignInFailuresTable {
  account: string;
  failures: number;
  last_failure_time: string;
  /** No password is checked for this account before this time (ISO 8601). */
  blocked_until: string;
}

/** A login page's authorization code, until redeemed at the token endpoint (PKCE S256) or expired. */
export interface AuthorizationCodesTable {
  /** SHA-256 (hex) of the code: the code itself is never stored. */
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  /** BASE64URL(SHA-256(code_verifier)), RFC 7636 S256. */
  code_challenge: string;
  scope: string;
  nonce: string | null;
  create_time: string;
  expire_time: string;
}

export interface ProductsTable {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  author_id: string;
  is_archived: number;
  create_time: string;
  update_time: string;
}

export interface ImagesTable {
  id: string;
  product_id: string;
  org_id: string;
  name: string;
  version: string | null;
  file_name: string;
  blob_key: string;
  size: number;
  sha256: string;
  sha1: string;
  md5: string;
  /** Detected type of the whole image, filled when a scan finishes. */
  detected_type: string | null;
  author_id: string;
  is_archived: number;
  create_time: string;
  update_time: string;
}

/** A pre-signed upload slot: pending → uploaded (PUT done) → used (finalized into an image). */
export interface TempFilesTable {
  id: string;
  product_id: string;
  org_id: string;
  author_id: string;
  status: 'pending' | 'uploaded' | 'used';
  blob_key: string | null;
  size: number | null;
  sha256: string | null;
  sha1: string | null;
  md5: string | null;
  expire_time: string;
  create_time: string;
}

/** Files attached to an image (debug symbols). */
export interface ImageFilesTable {
  id: string;
  image_id: string;
  product_id: string;
  filename: string;
  blob_key: string;
  size: number;
  sha256: string;
  metadata: string;
  author_id: string;
  create_time: string;
}

export type ScanStateType = 'new' | 'running' | 'done' | 'failed' | 'cancelled';

export interface ScansTable {
  id: string;
  image_id: string;
  product_id: string;
  org_id: string;
  author_id: string;
  state: ScanStateType;
  state_id: string;
  state_time: string;
  error: string | null;
  progress_phase: string | null;
  progress_percent: number | null;
  engine_version: string | null;
  /** Blob holding the gzipped JSON of the files tree, unknown chunks, problems and stats. */
  result_blob_key: string | null;
  create_time: string;
  /** The engine's ScanSummary JSON once the scan is done (migration 0002). */
  summary: string | null;
  /** Unsafe function uses of the image (totalUnsafeUses of its binaries); null when stored before 0006. */
  unsafe_uses: number | null;
}

/** A scan's problems, one row each, paged and filtered by level (migration 0002). */
export interface ScanProblemsTable {
  id: string;
  scan_id: string;
  seq: number;
  level: 'info' | 'warning' | 'error';
  kind: string;
  source: string;
  path: string | null;
  byte_offset: number | null;
  message: string;
}

export interface ScanStatesTable {
  id: string;
  scan_id: string;
  type: ScanStateType;
  /** Null when the system (a worker) made the move. */
  author_id: string | null;
  message: string | null;
  create_time: string;
}

export type JobStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/** Durable work queue: claimed with a lease that the worker extends by heartbeats. */
export interface JobsTable {
  id: string;
  kind: string;
  /** The scan a 'scan' job runs; null for other kinds. */
  scan_id: string | null;
  payload: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_time: string;
  lease_owner: string | null;
  lease_expire_time: string | null;
  /** Set when cancellation is requested; the running worker aborts. */
  cancel_requested: number;
  last_error: string | null;
  create_time: string;
  update_time: string;
}

export interface ComponentsTable {
  id: string;
  scan_id: string;
  image_id: string;
  product_id: string;
  ref: string;
  name: string;
  version: string | null;
  type: string;
  cpe: string | null;
  purl: string | null;
  /** The engine's Component JSON. */
  data: string;
}

export interface FindingsTable {
  id: string;
  scan_id: string;
  image_id: string;
  product_id: string;
  fingerprint: string;
  finding_type: string;
  pname: string;
  name: string;
  severity: string;
  cvss_score: number | null;
  epss_probability: number | null;
  is_kev: number;
  component_name: string | null;
  component_version: string | null;
  /** How sure a dependency vulnerability's match is, 0 to 1, and its label (0010); null for other findings. */
  match_confidence: number | null;
  match_confidence_label: string | null;
  /** The kernel triage's verdict (0010): applicable | not-applicable | unknown; null when not triaged. */
  applicability: string | null;
  /** The kernel triage rule behind the verdict (0106); null when not triaged or stored before. */
  applicability_rule: string | null;
  create_time: string;
  /** The engine's EngineFinding JSON. */
  data: string;
}

/**
 * How many findings a scan holds by type, severity, KEV and kernel verdict (0015), kept by triggers on findings:
 * the findings grid's total reads these instead of counting findings.
 */
export interface ScanFindingCountsTable {
  scan_id: string;
  product_id: string;
  image_id: string;
  finding_type: string;
  severity: string;
  is_kev: number;
  /** 1 for findings the kernel triage found not applicable (rejected unless someone set a status). */
  not_applicable: number;
  n: number;
}

/** A finding re-matching resolved (its vulnerability no longer applies), kept with why (0010). */
export interface FindingResolutionsTable {
  id: string;
  finding_id: string;
  scan_id: string;
  image_id: string;
  product_id: string;
  fingerprint: string;
  pname: string;
  /** 'no-longer-matches'. */
  reason: string;
  /** JSON: why (the component, what matched before, what the records say now). */
  details: string;
  /** The finding's EngineFinding JSON as it was. */
  data: string;
  create_time: string;
}

/** Issue status of a finding lives on (product, fingerprint), so it carries forward to later images. */
export interface FindingStatusesTable {
  product_id: string;
  fingerprint: string;
  status: 'new' | 'inProgress' | 'remediated' | 'rejected';
  update_time: string;
  /** An OpenVEX justification label (0003), for a rejected (not affected) finding. */
  justification: string | null;
  /** The comment of the change that set this state (0003). */
  comment: string | null;
}

export interface FindingStatusHistoryTable {
  id: string;
  product_id: string;
  fingerprint: string;
  finding_id: string;
  status: string;
  comment: string | null;
  author_id: string;
  create_time: string;
  /** An OpenVEX justification label (0003). */
  justification: string | null;
}

export interface CryptoAssetsTable {
  id: string;
  scan_id: string;
  image_id: string;
  product_id: string;
  ref: string;
  asset_type: string;
  name: string;
  is_expired: number;
  /** The engine's CryptoAsset JSON. */
  data: string;
}

/** A scan's executables and shared objects (0006): filtered columns, the rest of the engine's BinaryInfo as JSON. */
export interface BinariesTable {
  id: string;
  scan_id: string;
  image_id: string;
  product_id: string;
  org_id: string;
  path: string;
  format: string;
  type: string;
  arch: string;
  bits: number;
  endian: string;
  nx: number;
  /** ELF flags: null on PE/TE rows. */
  pie: number | null;
  relro: string | null;
  canary: number | null;
  fortify: number | null;
  stripped: number | null;
  /** PE/TE flags: null on ELF rows. */
  aslr: number | null;
  high_entropy_va: number | null;
  cfg: number | null;
  safe_seh: number | null;
  force_integrity: number | null;
  signed: number | null;
  unsafe_uses: number;
  network_facing: number;
  /** {unsafeFunctions, callSitesDecoded, symbols, rpath, runpath} of the engine's BinaryInfo. */
  data: string;
}

/** Filled by the vulnerability engine when a finding becomes more serious (new KEV entry, higher EPSS, ...). */
export interface EscalationsTable {
  id: string;
  product_id: string;
  image_id: string;
  finding_fingerprint: string;
  reason: string;
  /** JSON with what changed (old and new values). */
  details: string | null;
  /** 1 once a user has seen or acknowledged it; `newEscalationsCount` counts the 0 rows. */
  acknowledged: number;
  create_time: string;
}

/** An organisation's own YARA-X rule source (may declare several rules); `name` is unique per organisation. */
export interface RulesTable {
  id: string;
  org_id: string;
  name: string;
  source: string;
  enabled: number;
  author_id: string | null;
  create_time: string;
  update_time: string;
}

/** A shipped rule an organisation switched off ('builtin/<file>/<rule>'); no row means enabled. */
export interface DisabledBuiltinRulesTable {
  org_id: string;
  rule_id: string;
  author_id: string | null;
  create_time: string;
}

/** What a scan's image says about its kernel's build (engine/vulns/kernel-evidence.ts KernelEvidence as JSON), 0106. */
export interface ScanKernelEvidenceTable {
  scan_id: string;
  data: string;
}

/** One entry of the engine's analysis cache (engine/analysis-cache.ts) of one organisation, 0016. */
export interface AnalysisCacheTable {
  org_id: string;
  key: string;
  /** JSON, as the engine wrote it. */
  value: string;
  /** UTF-8 size of value: what the per-organisation cap counts. */
  bytes: number;
  created_at: string;
  last_used_at: string;
}

/** An organisation's running count of its analysis_cache bytes (0018): what the cap is checked against. */
export interface AnalysisCacheUsageTable {
  org_id: string;
  /** A bigint column: PostgreSQL returns it as a string. */
  bytes: number | string;
}

export interface WebhooksTable {
  id: string;
  org_id: string;
  url: string;
  /** JSON array of the event types it receives. */
  events: string;
  description: string;
  /** Standard Webhooks secret (`whsec_…`); kept in clear because it signs. */
  secret: string;
  enabled: number;
  disabled_reason: string | null;
  /** Failed attempts in a row (any delivery); 0 after a success. */
  failure_streak: number;
  author_id: string | null;
  create_time: string;
  update_time: string;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  /** The `webhook-id` header: the delivery's own id, or the original's for a redelivery (receivers deduplicate). */
  message_id: string;
  event_type: string;
  /** The exact JSON body sent (and signed). */
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  /** When the next attempt is due; null once the delivery succeeded or failed for good. */
  next_attempt_time: string | null;
  create_time: string;
  update_time: string;
}

export interface CoreTables {
  organisations: OrganisationsTable;
  users: UsersTable;
  clients: ClientsTable;
  signing_keys: SigningKeysTable;
  external_identities: ExternalIdentitiesTable;
  sign_in_failures: SignInFailuresTable;
  authorization_codes: AuthorizationCodesTable;
  products: ProductsTable;
  images: ImagesTable;
  temp_files: TempFilesTable;
  image_files: ImageFilesTable;
  scans: ScansTable;
  scan_states: ScanStatesTable;
  scan_problems: ScanProblemsTable;
  jobs: JobsTable;
  components: ComponentsTable;
  findings: FindingsTable;
  finding_resolutions: FindingResolutionsTable;
  scan_finding_counts: ScanFindingCountsTable;
  finding_statuses: FindingStatusesTable;
  finding_status_history: FindingStatusHistoryTable;
  crypto_assets: CryptoAssetsTable;
  binaries: BinariesTable;
  escalations: EscalationsTable;
  scan_kernel_evidence: ScanKernelEvidenceTable;
  rules: RulesTable;
  disabled_builtin_rules: DisabledBuiltinRulesTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  analysis_cache: AnalysisCacheTable;
  analysis_cache_usage: AnalysisCacheUsageTable;
}

export interface Database extends CoreTables, VulnTables {}
