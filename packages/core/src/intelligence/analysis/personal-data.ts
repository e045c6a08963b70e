import { lineAt } from './secrets.ts';

/**
 * Personal data is flagged, not removed (spec rule 7): the finding names the kind and the
 * line so a person can review it; the value itself never leaves the analyser.
 */

export interface PersonalFinding {
  kind: 'email' | 'us_ssn' | 'card_number' | 'phone_number';
  line: number;
}

// Bounded quantifiers (RFC 5321 lengths) keep the scan linear on hostile input.
const email = /\b[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}\b/g;
// US SSN without the ranges the SSA never issues (000, 666, 9xx, 00 group, 0000 serial).
const ssn = /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g;
// 13–19 digits, optionally grouped by spaces or dashes.
const card = /\b\d(?:[ -]?\d){12,18}\b/g;
const phone = /(?<![\w.])\+\d{1,3}[ .-]?\(?\d{1,4}\)?(?:[ .-]?\d{2,4}){2,4}\b/g;

/** The Luhn checksum every payment card number satisfies. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro). */
const cardPrefix = /^(4|5[1-5]|2[2-7]|3[47]|3[068]|6(?:011|5|4[4-9]|2)|35|5[06-9])/;

function isCardNumber(raw: string): boolean {
  const digits = raw.replace(/[ -]/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  if (/^(\d)\1+$/.test(digits)) return false;
  return cardPrefix.test(digits) && luhnValid(digits);
}

/** Finds personal data in (already redacted) text. */
export function findPersonalData(text: string): PersonalFinding[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const out: PersonalFinding[] = [];
  const scan = (re: RegExp, kind: PersonalFinding['kind'], accept: (m: string) => boolean = () => true) => {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) if (accept(m[0])) out.push({ kind, line: lineAt(starts, m.index) });
  };
  scan(email, 'email', (m) => !/\.(png|jpe?g|gif|svg|webp|js|ts|css)$/i.test(m));
  scan(ssn, 'us_ssn');
  scan(card, 'card_number', isCardNumber);
  scan(phone, 'phone_number', (m) => m.replace(/\D/g, '').length >= 9);
  return out.sort((a, b) => a.line - b.line);
}
