export * from './registry';
export { PlaybookStrategy } from './strategy';
export { shapeToFormat, parseCount } from './shape';
