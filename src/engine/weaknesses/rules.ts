// The weakness rules, in the order their findings are listed. Adding a rule is one file plus one line here.
// (Private keys shipped in the image are already findings of the crypto stage: 'private-key-in-image', CWE-321.)
import { consoleWithoutLoginRule } from './console-without-login.rule.js';
import { debugServiceRule } from './debug-service.rule.js';
import { defaultPasswordRule } from './default-password.rule.js';
import { embeddedTokenRule } from './embedded-token.rule.js';
import { emptyPasswordRule } from './empty-password.rule.js';
import { passwordAssignmentRule } from './password-assignment.rule.js';
import type { WeaknessRule } from './rule.js';
import { telnetEnabledRule } from './telnet-enabled.rule.js';
import { telnetdBuiltinAccountRule } from './telnetd-builtin-account.rule.js';
import { unexpectedSetuidRule } from './unexpected-setuid.rule.js';
import { worldWritableRule } from './world-writable.rule.js';

export const weaknessRules: readonly WeaknessRule[] = [
  emptyPasswordRule,
  defaultPasswordRule,
  telnetdBuiltinAccountRule,
  passwordAssignmentRule,
  embeddedTokenRule,
  telnetEnabledRule,
  consoleWithoutLoginRule,
  debugServiceRule,
  worldWritableRule,
  unexpectedSetuidRule,
];
