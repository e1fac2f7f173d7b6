// Shared TypeBox schemas: path ids, the error body, the author object and the resources every route serializes.
// Responses are serialized through these, so a field missing here (hashes, keys) can never leak.
import { Type, type Static } from '@fastify/type-provider-typebox';
import { ULID_PATTERN } from '../ids.js';
import { ImageAnalysisSchema, ScanSummarySchema } from './outcome-schemas.js';

export const Ulid = (description: string) => Type.String({ pattern: ULID_PATTERN, minLength: 26, maxLength: 26, description });

export const ErrorBody = Type.Object(
  {
    message: Type.String(),
    details: Type.Array(Type.Object({ reason: Type.String(), field: Type.Optional(Type.String()), service: Type.Optional(Type.String()) })),
    permission: Type.Optional(Type.String()),
    resourceName: Type.Optional(Type.String()),
  },
  { $id: 'Error' },
);

/** The error responses every authenticated route can give, plus extras. */
export function errorResponses(...codes: number[]) {
  const all = [400, 401, 403, 404, 429, ...codes];
  return Object.fromEntries([...new Set(all)].map((code) => [code, Type.Ref('Error')]));
}

export const Author = Type.Object(
  {
    userId: Type.String(),
    id: Type.String(),
    createTime: Type.String(),
    email: Type.String(),
    status: Type.String(),
    resourceType: Type.String(),
  },
  { $id: 'Author' },
);

export const AuthorRef = Type.Ref('Author');

export const Counts = Type.Object(
  {
    newEscalationsCount: Type.Integer(),
    dependenciesCount: Type.Integer(),
    cryptographicAssetsCount: Type.Integer(),
    findingTypeCounts: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() })),
    kev: Type.Integer(),
    expiredCertificatesCount: Type.Integer(),
    notApplicableCount: Type.Integer({ description: 'Kernel vulnerability findings whose code the kernel triage found not built (rejected as vulnerable_code_not_present by default), not in findingTypeCounts' }),
    notApplicableByRule: Type.Array(Type.Object({ rule: Type.String(), count: Type.Integer() }), {
      description: 'The not-applicable kernel findings by the triage rule that removed them: config-option-off (an option the file needs is off), other-architecture (arch/ code of another architecture); unrecorded for findings triaged before rules were stored',
    }),
    unsafeFunctionsCount: Type.Integer({ description: 'Uses of unsafe functions (strcpy, sprintf, system, ...) in the binaries: call sites where decoded, imports elsewhere; 0 for scans stored before binaries were recorded' }),
  },
  { $id: 'ImageCounts' },
);

const Share = (description: string) => Type.Number({ minimum: 0, maximum: 1, description: `Share (0..1) of these binaries ${description}; 0 when there are none` });

/** Hardening of the binaries of an image's latest completed scan (absent when that scan recorded none: stored before binaries were). */
export const ImageHardening = Type.Object(
  {
    binaries: Type.Integer({ description: 'Executables, shared objects and kernel images analysed' }),
    elf: Type.Object({
      count: Type.Integer({ description: 'ELF executables and shared objects (kernel images are not counted in the shares)' }),
      nx: Share('with a non-executable stack'), pie: Share('position independent (PIE or shared object)'),
      relroFull: Share('with full RELRO'), relroPartial: Share('with partial RELRO'), canary: Share('with a stack canary'),
      fortify: Share('built with FORTIFY_SOURCE'), stripped: Share('stripped of symbols'),
    }),
    pe: Type.Object({
      count: Type.Integer({ description: 'PE and TE images' }),
      nx: Share('compatible with DEP (NX_COMPAT)'), aslr: Share('with ASLR (DYNAMIC_BASE)'), highEntropyVa: Share('with 64-bit high-entropy ASLR'),
      cfg: Share('with Control Flow Guard'), safeSeh: Share('with SafeSEH (or no SEH)'), forceIntegrity: Share('forcing signature checks (FORCE_INTEGRITY)'),
      signed: Share('with an Authenticode signature attached (not verified)'),
    }),
  },
  { $id: 'ImageHardening' },
);

export const ScanStateSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String({ description: 'new|running|done|failed|cancelled, or with status=true in_progress|completed|failed|cancelled' }),
    createTime: Type.String(),
    updateTime: Type.String(),
    parent: Type.String(),
    author: Type.Optional(AuthorRef),
    source: Type.String(),
    error: Type.Optional(Type.Object({ message: Type.String() })),
    progress: Type.Optional(Type.Object({ phase: Type.String(), percent: Type.Integer() })),
  },
  { $id: 'ScanState' },
);

export const ScanSchema = Type.Object(
  {
    id: Type.String(),
    createTime: Type.String(),
    author: Type.Optional(AuthorRef),
    parent: Type.String(),
    latestScanState: Type.Ref('ScanState'),
    summary: Type.Optional(ScanSummarySchema),
  },
  { $id: 'Scan' },
);

export const FileSchema = Type.Object(
  {
    id: Type.String(),
    createTime: Type.String(),
    author: Type.Optional(AuthorRef),
    filename: Type.String(),
    isAttachment: Type.Boolean(),
    downloadUrl: Type.String(),
    parent: Type.String(),
    size: Type.Integer(),
    metadata: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'File' },
);

export const ImageSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    version: Type.Optional(Type.String()),
    createTime: Type.String(),
    author: Type.Optional(AuthorRef),
    parent: Type.String(),
    isArchived: Type.Boolean(),
    fileName: Type.String(),
    size: Type.Integer(),
    hashes: Type.Object({ sha256: Type.String(), sha1: Type.String(), md5: Type.String() }),
    detectedType: Type.Optional(Type.String()),
    files: Type.Array(Type.Ref('File')),
    scans: Type.Array(Type.Ref('Scan')),
    latestScan: Type.Optional(Type.Ref('Scan')),
    counts: Type.Optional(Type.Ref('ImageCounts')),
    hardening: Type.Optional(Type.Ref('ImageHardening')),
    findings: Type.Optional(Type.Array(Type.Unknown())),
    analysis: Type.Optional(ImageAnalysisSchema),
  },
  { $id: 'Image' },
);

export const ProductSchema = Type.Object(
  {
    id: Type.String({ description: 'products/<ULID>' }),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    createTime: Type.String(),
    updateTime: Type.String(),
    author: Type.Optional(AuthorRef),
    parent: Type.Optional(Type.String()),
    isArchived: Type.Boolean(),
  },
  { $id: 'Product' },
);

/** Schemas registered once with `addSchema` so routes refer to them by $id (and OpenAPI lists them). */
export const sharedSchemas = [ErrorBody, Author, Counts, ImageHardening, ScanStateSchema, ScanSchema, FileSchema, ImageSchema, ProductSchema];

export type ProductBody = Static<typeof ProductSchema>;
