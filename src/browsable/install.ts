import { registerInstaller } from '../installers.js';
import { installStaticAssets } from './static-assets.js';

// Registers the static-file route for every app; imported by the package
// entry (src/index.ts) so that apps built from it serve the pages' assets.
registerInstaller(installStaticAssets);

export { installStaticAssets };
