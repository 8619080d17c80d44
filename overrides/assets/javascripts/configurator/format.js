// Numbers and words for the page's locale: Intl.NumberFormat's figures, and the labels'
// {placeholders} filled.

export function formatters(locale) {
  const number = (digits) =>
    new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const usd = (digits) =>
    new Intl.NumberFormat(locale, {
      style: "currency",
      currency: "USD",
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
  const n0 = number(0),
    n1 = number(1),
    n2 = number(2),
    usd0 = usd(0),
    usd2 = usd(2);
  return {
    number: (value, digits) => ({ 0: n0, 1: n1, 2: n2 })[digits].format(value),
    // A figure a reader set (12.5, 2, 0.45): the fewest decimals, up to two, that write it.
    brief: (value) => {
      const two = Math.round(value * 100) / 100;
      return (two === Math.round(two) ? n0 : Math.round(two * 10) / 10 === two ? n1 : n2).format(value);
    },
    usd: (value, cents) => (cents ? usd2 : usd0).format(value),
  };
}

// "{a} and {b}" with values, in one pass: a placeholder without a value stays as it is, and a
// value holding `$&`, `$'` or `{default}` is shown as typed (String.replace reads `$` patterns
// in a replacement string, not in what a function returns).
export function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (all, key) => (Object.hasOwn(values, key) ? String(values[key]) : all));
}

export function users(t, f, n) {
  return fill(n === 1 ? t.users_one : t.users_many, { n: f.number(n, 0) });
}

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };
export const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
