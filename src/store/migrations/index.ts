// The ordered list of migrations, frozen once released. Core migrations are 00xx; the vulnerability database
// adds 01xx lines. Each entry is one line.
import type { Migration } from 'kysely';
import * as core from './0001-core.js';
import * as scanSummary from './0002-scan-summary.js';
import * as findingStateJustification from './0003-finding-state-justification.js';
import * as identityHardening from './0004-identity-hardening.js';
import * as customRules from './0005-custom-rules.js';
import * as binaries from './0006-binaries.js';
import * as webhooks from './0008-webhooks.js';
import * as authorizationCodes from './0009-authorization-codes.js';
import * as findingApplicability from './0010-finding-applicability.js';
import * as gridIndexes from './0011-grid-indexes.js';
import * as scanFindingCounts from './0015-scan-finding-counts.js';
import * as analysisCache from './0016-analysis-cache.js';
import * as webhookDeliveryRetention from './0017-webhook-delivery-retention.js';
import * as analysisCacheUsage from './0018-analysis-cache-usage.js';
import * as vulnerabilities from './0100-vulnerabilities.js';
import * as vulnerabilityCriteria from './0101-vulnerability-criteria.js';
import * as kevCatalogDate from './0102-kev-catalog-date.js';
import * as criteriaCoveringIndex from './0103-criteria-covering-index.js';
import * as rematchRequest from './0104-rematch-request.js';
import * as findingsUniqueFingerprint from './0105-findings-unique-fingerprint.js';
import * as scanKernelEvidence from './0106-scan-kernel-evidence.js';
import * as dropVulnProducts from './0107-drop-vuln-products.js';

export const migrations: Array<[name: string, migration: Migration]> = [
  ['0001-core', core],
  ['0002-scan-summary', scanSummary],
  ['0003-finding-state-justification', findingStateJustification],
  ['0004-identity-hardening', identityHardening],
  ['0005-custom-rules', customRules],
  ['0006-binaries', binaries],
  ['0008-webhooks', webhooks],
  ['0009-authorization-codes', authorizationCodes],
  ['0010-finding-applicability', findingApplicability],
  ['0011-grid-indexes', gridIndexes],
  ['0015-scan-finding-counts', scanFindingCounts],
  ['0016-analysis-cache', analysisCache],
  ['0017-webhook-delivery-retention', webhookDeliveryRetention],
  ['0018-analysis-cache-usage', analysisCacheUsage],
  ['0100-vulnerabilities', vulnerabilities],
  ['0101-vulnerability-criteria', vulnerabilityCriteria],
  ['0102-kev-catalog-date', kevCatalogDate],
  ['0103-criteria-covering-index', criteriaCoveringIndex],
  ['0104-rematch-request', rematchRequest],
  ['0105-findings-unique-fingerprint', findingsUniqueFingerprint],
  ['0106-scan-kernel-evidence', scanKernelEvidence],
  ['0107-drop-vuln-products', dropVulnProducts],
];
