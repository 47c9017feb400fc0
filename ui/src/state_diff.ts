// What a step changed in a thread's state: the keys it added, removed or changed, and for a
// list that only grew (messages, a trail), just the items it appended.

export type Change =
  | { key: string; kind: "added" | "removed"; value: unknown }
  | { key: string; kind: "changed"; before: unknown; after: unknown }
  | { key: string; kind: "appended"; items: unknown[] };

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The changes from `before` to `after`, in `after`'s key order, then the removed keys. */
export function stateDiff(before: Record<string, unknown>, after: Record<string, unknown>): Change[] {
  const changes: Change[] = [];
  for (const [key, value] of Object.entries(after)) {
    if (!(key in before)) {
      changes.push({ key, kind: "added", value });
      continue;
    }
    const old = before[key];
    if (same(old, value)) continue;
    if (Array.isArray(old) && Array.isArray(value) && value.length > old.length && same(old, value.slice(0, old.length))) {
      changes.push({ key, kind: "appended", items: value.slice(old.length) });
    } else {
      changes.push({ key, kind: "changed", before: old, after: value });
    }
  }
  for (const key of Object.keys(before)) {
    if (!(key in after)) changes.push({ key, kind: "removed", value: before[key] });
  }
  return changes;
}
