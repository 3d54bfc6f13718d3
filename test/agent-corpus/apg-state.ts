/**
 * Page-state expressions for the public corpus's checks: plain DOM queries evaluated in the page after a run (never
 * the observation), written as source text because tsx would slip its helpers into a function the page cannot run.
 */
export const q = (selector: string) => `document.querySelector(${JSON.stringify(selector)})`;
export const value = (selector: string) => `${q(selector)}.value`;
export const attr = (selector: string, name: string) => `${q(selector)}.getAttribute(${JSON.stringify(name)})`;
/** The text of the elements matching `selector`, trimmed, in document order. */
export const texts = (selector: string) =>
  `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent.replace(/\\s+/g, ' ').trim())`;
/** The values of the form fields matching `selector`, in document order. */
export const values = (selector: string) => `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.value)`;
export const style = (selector: string, prop: string) => `${q(selector)}.style.${prop}`;

/** Today's month and year as the guide's date pickers write a date (m/d/yyyy), `months` months on. */
export const dayOfMonth =
  (day: number, months = 0) =>
  () => {
    const d = new Date();
    const m = new Date(d.getFullYear(), d.getMonth() + months, 1);
    return `${m.getMonth() + 1}/${day}/${m.getFullYear()}`;
  };
