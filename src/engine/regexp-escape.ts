// Text to be matched literally inside a regular expression: every character that has a meaning there escaped.
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
