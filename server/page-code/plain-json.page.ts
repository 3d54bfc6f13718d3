/**
 * JSON of plain data (objects, arrays, primitives), written without JSON.stringify's walk: that looks toJSON up on each
 * object it meets, where a page may have put its own on Object.prototype or Array.prototype (an opened window's data
 * is its opener's objects), so a call of ours would run the page's code. Only primitives go through the realm's
 * JSON.stringify (a primitive has no toJSON to look up). Everything it uses is `g`'s own, taken when it is made.
 * Self-contained (nothing from outside its body but its arguments): its source text is put into workers' preludes.
 *
 * `omit`: an object key left out wherever it appears.
 */
export function plainJson(g: typeof globalThis, omit?: string): (value: unknown) => string | undefined {
  const apply = g.Reflect.apply;
  const stringify = g.JSON.stringify;
  const ownKeys = g.Reflect.ownKeys;
  const isArray = g.Array.isArray;
  const jsonOf = (value: unknown): string | undefined => {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
    if (value === null || typeof value !== 'object') return apply(stringify, g.JSON, [value]) as string;
    const fields = value as Record<string | number, unknown>;
    if (isArray(value)) {
      let out = '[';
      for (let i = 0; i < (value as unknown[]).length; i++) out += (i ? ',' : '') + (jsonOf(fields[i]) ?? 'null');
      return out + ']';
    }
    const keys = ownKeys(value);
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key !== 'string') continue;
      const field = key === omit ? undefined : jsonOf(fields[key]);
      if (field !== undefined) out += (out.length > 1 ? ',' : '') + (apply(stringify, g.JSON, [key]) as string) + ':' + field;
    }
    return out + '}';
  };
  return jsonOf;
}
