/**
 * A function for locator.evaluate / evaluateHandle, built from source text. Written as a TypeScript function, it
 * would break when the server runs under tsx: esbuild's keepNames wraps every named inner function in
 * `__name(…)`, which does not exist in the page ("ReferenceError: __name is not defined"). The observation's
 * DOM_SCRIPT is source text for the same reason. Bodies are plain ES2019 taking `el` (the element) and `arg`.
 */
export function inPage<A, R>(body: string): (el: Element, arg: A) => R {
  return new Function('el', 'arg', body) as (el: Element, arg: A) => R;
}
