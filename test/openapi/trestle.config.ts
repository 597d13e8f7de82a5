import { defineProject } from '../../src/project.js';
import { routes } from './fixtures.js';

export default defineProject({ routes });
