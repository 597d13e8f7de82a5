// The project the `trestle` command works on in this repository: the example
// service (`npm run trestle -- migrate`, `… seed`, `… serve`, `… token demo`).
export { default } from './example/project.js';
