import type { Migration } from 'kysely';
import catalogue from './0001_catalogue.js';
import favourite from './0002_favourite.js';
import tags from './0003_tags.js';

/**
 * The catalogue's migrations, written by `trestle makemigrations` from
 * ../models.ts, gathered for `npm start` (which migrates without the CLI).
 * Add the next file here when makemigrations writes one.
 */
export const catalogueMigrations: Record<string, Migration> = {
  '0001_catalogue': catalogue,
  '0002_favourite': favourite,
  '0003_tags': tags,
};
