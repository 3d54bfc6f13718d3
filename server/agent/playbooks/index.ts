export { definePlaybook, type PlaybookSpec } from './define-playbook';
export * from './registry';
export { parseCount, shapeToFormat } from './shape';
export { PlaybookStrategy } from './strategy';
