/**
 * A value in the DevTools protocol's deep serialization (Runtime.evaluate with `serialization: 'deep'`), back as a
 * plain value: what `returnByValue` would have given (keys holding undefined left out, as JSON leaves them), for a
 * call that must also keep its result by reference (documents.ts capture). Bounded by the depth the call asked.
 */
export interface Deep {
  type: string;
  value?: unknown;
}

export function fromDeep(v: Deep): unknown {
  switch (v.type) {
    case 'null':
      return null;
    case 'string':
    case 'boolean':
      return v.value;
    case 'number':
      // NaN, -0 and the infinities come as strings
      return typeof v.value === 'number' ? v.value : Number(v.value);
    case 'array':
      return Array.isArray(v.value) ? (v.value as Deep[]).map(fromDeep) : [];
    case 'object': {
      const out: Record<string, unknown> = {};
      if (Array.isArray(v.value))
        for (const [k, x] of v.value as [unknown, Deep][]) {
          const d = fromDeep(x);
          if (typeof k === 'string' && d !== undefined) out[k] = d;
        }
      return out;
    }
    default:
      return undefined;
  }
}
