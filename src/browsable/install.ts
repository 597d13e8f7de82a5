import { registerInstaller } from '../app.js';
import { installStaticAssets } from './static-assets.js';

// Kept apart from the renderer: settings.ts imports the renderer, and app.ts
// imports settings.ts, so registering from there would run before app.ts has
// initialised.
registerInstaller(installStaticAssets);

export { installStaticAssets };
