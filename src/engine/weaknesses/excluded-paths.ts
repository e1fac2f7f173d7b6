// Where a credential-looking string is an example, not a credential: documentation, man pages, headers, locale
// data and web UI translations. The literal-password and token rules do not search there.
const EXCLUDED_DIRS = /^\/usr\/(?:share\/(?:man|doc|info|locale|i18n|licenses|common-licenses|zoneinfo|terminfo|help)|lib\/locale|include)\//;

/** Documentation, man pages, locale data and sources: text where "password=" is an example, not a credential. */
export function isExcludedText(fsPath: string): boolean {
  return EXCLUDED_DIRS.test(fsPath) || /\/(?:man|doc|docs|locales?|lang|langs|languages?|i18n|l10n|translations?)\//.test(fsPath);
}
