type Loose = Readonly<Record<string, unknown>>;

export const isRecord = (value: unknown): value is Loose =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A member of a JSON object, or undefined for anything else. */
export const field = (value: unknown, name: string): unknown => (isRecord(value) ? value[name] : undefined);

export const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Equality of two JSON values as JSON sees them: key order has no meaning, and -0 is 0. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
  );
}
