export * from './field.js';
export * from './fields.js';
export * from './relations.js';
export * from './serializer.js';
export * from './validators.js';
export * from './model.js';
