export { TokenStore } from './token-store.js';
export type { Token, TokenInfo, TokenLookup, TokenStoreOptions, UserRef, CreateMissingProgress } from './token-store.js';
export { generateKey, digestKey, KeyCipher, KEY_BYTES, MAX_KEY_LENGTH } from './keys.js';
export { TokenKeyUnavailable, TokenError } from './errors.js';
export { ObtainAuthToken, obtainAuthToken } from './obtain-auth-token.js';
export { tokenStoreFor } from './tokens-service.js';
export type { TokenTable } from './token-table.js';
