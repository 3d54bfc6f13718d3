import type { PageEntry } from '../../page-code/page-bundle';

/** The connect widget's script, /link/widget.js: the modules under page/, bundled into one IIFE from main.ts. */
export const WIDGET_ENTRY: PageEntry = { file: 'server/connect/widget/page/main.ts', kind: 'script' };
